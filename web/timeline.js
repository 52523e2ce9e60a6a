/* hindsight timeline page: draws the Chrome trace-event JSON embedded in the
 * page (script#hindsight-trace, written by `hindsight timeline`) as one track
 * per thread with its calls nested by depth, time horizontal. Plain browser
 * JavaScript over the global d3 (v7), no network.
 *
 * A trace of at most ALL_UP_TO spans has every span that overlaps the view
 * drawn as an element (<g class="span">, at least a pixel wide). In a larger
 * one only spans at least MIN_W pixels wide are (at most MAX_ELEMENTS, the
 * widest), so 200,000 spans load in about a second; the narrower ones of each
 * row are drawn together as one grey "coverage" path so that busy stretches
 * do not look empty. Every zoom or pan draws again.
 *
 * The DOM contract that tests rely on (tests/e2e/tools/page_check.py):
 *   g.track[data-tid] with a .track-label holding the thread's name;
 *   g.span[data-tid][data-depth][data-name][data-cat][data-first][data-last]
 *     holding a <rect> whose x, y, width, height are CSS pixels of svg#timeline
 *     (no transform on any ancestor, no viewBox) and maybe a <text>;
 *   g.marker[data-cat][data-tid][data-position] holding a <title>;
 *   #details, filled by a click, with the command in code#details-cmd;
 *   body[data-ready="1"], body[data-spans], body[data-svg-left|top] once drawn
 *     (data-ready="error" and body[data-error] when it cannot draw).
 * Also: body[data-background] (the plot's background colour),
 * body[data-ready-ms] (since navigation), body[data-timing] (where that went),
 * body[data-render-ms] (the last drawing, kept up to date).
 */
(function () {
  "use strict";

  if (typeof d3 === "undefined") {
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = "This page was built without d3: it cannot draw its timeline.";
    document.body.appendChild(p);
    document.body.dataset.error = p.textContent;
    document.body.dataset.spans = "0";
    document.body.dataset.ready = "error";
    return;
  }

  const ROW_H = 18;            // one call depth, px
  const SPAN_H = 16;           // a span's rect inside its row
  const LABEL_H = 22;          // a track's name strip
  const TRACK_PAD = 6;         // below a track's deepest row
  const AXIS_H = 26;
  const MARGIN_L = 12;         // time starts this far into the svg, px
  const MARGIN_R = 24;         // and ends this far before its right edge
  const ALL_UP_TO = 2000;      // a trace this small: every span in view is an element
  const MIN_W = 1;             // else the narrowest span drawn as an element, px
  const MAX_ELEMENTS = 12000;  // past this many, the narrowest are drawn as coverage too
  const TEXT_PAD = 4;
  const MIN_LABEL_CHARS = 2;
  const MAX_ZOOM_PX_PER_UNIT = 40;
  const BACKGROUND = "#ffffff";
  const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
  const LABEL_FONT = '600 12px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
  const SVG_NS = "http://www.w3.org/2000/svg";

  const body = document.body;
  const plotEl = document.getElementById("plot");
  const svgEl = document.getElementById("timeline");
  const axisEl = document.getElementById("axis");
  const detailsEl = document.getElementById("details");
  const tooltipEl = document.getElementById("tooltip");
  const searchEl = document.getElementById("search");
  const searchCountEl = document.getElementById("search-count");

  /* ---------- small helpers ---------- */

  function num(v) {
    if (typeof v === "number") return v;
    if (v === null || v === undefined || v === "" || typeof v === "boolean") return NaN;
    return Number(v);
  }
  const fmtInt = d3.format(",");
  function fmtNum(v) {
    return Number.isInteger(v) ? fmtInt(v) : String(+v.toPrecision(12));
  }
  function plain(v) {            // a number for a command line: no separators
    return Number.isInteger(v) ? String(v) : String(+v.toPrecision(15));
  }
  function shellQuote(s) {
    if (s !== "" && /^[A-Za-z0-9_\/.,:+=@%^-]+$/.test(s)) return s;
    return "'" + s.replace(/'/g, "'\\''") + "'";
  }
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG_NS, tag);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  /* A stable colour per function name: FNV-1a over its characters gives the
     hue and a little of saturation and lightness; light enough for dark text. */
  const colourCache = new Map();
  function colourOf(name) {
    let c = colourCache.get(name);
    if (c) return c;
    if (name === "??" || name === "") {
      c = "#ced4da";
    } else {
      let h = 0x811c9dc5;
      for (let i = 0; i < name.length; i++) {
        h ^= name.charCodeAt(i);
        h = Math.imul(h, 0x01000193);
      }
      h ^= h >>> 16;             /* murmur3's finaliser: FNV's low bits vary too little */
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      h >>>= 0;
      /* CIE HCL: the same lightness looks the same in every hue. */
      const hue = h % 360;
      const chroma = 28 + ((h >>> 9) % 18);
      const light = 74 + ((h >>> 17) % 9);
      c = d3.hcl(hue, chroma, light).formatHex();
    }
    colourCache.set(name, c);
    return c;
  }

  /* Text widths, measured once per string with the spans' font. */
  const measureCtx = document.createElement("canvas").getContext("2d");
  measureCtx.font = FONT;
  const widthCache = new Map();
  function textWidth(s) {
    let w = widthCache.get(s);
    if (w === undefined) {
      w = measureCtx.measureText(s).width;
      if (widthCache.size > 50000) widthCache.clear();
      widthCache.set(s, w);
    }
    return w;
  }
  const ELLIPSIS_W = textWidth("\u2026");
  const AVG_CHAR_W = textWidth("abcdefghijklmnopqrstuvwxyz_0123456789") / 37;
  function fitLabel(s, w) {
    const room = w - 2 * TEXT_PAD;
    if (room < AVG_CHAR_W * MIN_LABEL_CHARS) return null;
    if (textWidth(s) <= room) return s;
    let n = Math.min(s.length - 1, Math.floor((room - ELLIPSIS_W) / AVG_CHAR_W));
    while (n >= MIN_LABEL_CHARS && textWidth(s.slice(0, n)) + ELLIPSIS_W > room) n--;
    return n >= MIN_LABEL_CHARS ? s.slice(0, n) + "\u2026" : null;
  }

  /* ---------- the data ---------- */

  function readTrace() {
    const node = document.getElementById("hindsight-trace");
    const text = node ? node.textContent.trim() : "";
    if (text === "" || text.startsWith("/*")) throw new Error("this page holds no trace data");
    return JSON.parse(text);
  }

  function build(trace) {
    const events = Array.isArray(trace) ? trace
      : (trace && Array.isArray(trace.traceEvents) ? trace.traceEvents : []);
    const other = (trace && !Array.isArray(trace) && trace.otherData) || {};
    const meta = (other && typeof other.hindsight === "object" && other.hindsight) || {};
    const threads = new Map();
    function thread(tid) {
      let t = threads.get(tid);
      if (!t) {
        t = { tid: tid, name: null, number: null, sortIndex: NaN, spans: [], markers: [], rows: [],
              byDepth: [], undepthed: false };
        threads.set(tid, t);
      }
      return t;
    }
    (Array.isArray(meta.threads) ? meta.threads : []).forEach(function (m) {
      if (!m || !isFinite(num(m.tid))) return;
      const t = thread(num(m.tid));
      if (m.name) t.name = String(m.name);
      if (isFinite(num(m.number))) t.number = num(m.number);
      if (isFinite(num(m.positions))) t.positions = num(m.positions);
    });

    const spans = [];
    const markers = [];
    let processName = null;
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < events.length; k++) {
      const e = events[k];
      if (!e || typeof e !== "object") continue;
      const tid = num(e.tid);
      const args = (e.args && typeof e.args === "object") ? e.args : {};
      if (e.ph === "M") {
        if (e.name === "process_name" && args.name) processName = String(args.name);
        if (!isFinite(tid)) continue;
        if (e.name === "thread_name" && args.name) thread(tid).name = String(args.name);
        else if (e.name === "thread_sort_index" && isFinite(num(args.sort_index)))
          thread(tid).sortIndex = num(args.sort_index);
        continue;
      }
      const ts = num(e.ts);
      if (!isFinite(tid) || !isFinite(ts)) continue;
      if (e.ph === "X") {
        let dur = num(e.dur);
        if (!isFinite(dur) || dur < 0) dur = 0;
        const depth = num(args.depth);
        const th = thread(tid);
        const s = {
          i: spans.length,
          tid: tid,
          ts: ts,
          end: ts + dur,
          dur: dur,
          depth: isFinite(depth) && depth >= 0 ? Math.floor(depth) : -1,
          name: e.name === undefined || e.name === null ? "??" : String(e.name),
          cat: e.cat === undefined || e.cat === null ? "call" : String(e.cat),
          args: args,
          thread: th,
          match: false
        };
        spans.push(s);
        th.spans.push(s);
        if (s.depth < 0) th.undepthed = true;
        else (th.byDepth[s.depth] || (th.byDepth[s.depth] = [])).push(s);
        if (ts < lo) lo = ts;
        if (s.end > hi) hi = s.end;
      } else if (e.ph === "i" || e.ph === "I" || e.ph === "R" || e.ph === "n") {
        const m = {
          i: markers.length,
          tid: tid,
          ts: ts,
          name: e.name === undefined || e.name === null ? "" : String(e.name),
          cat: e.cat === undefined || e.cat === null ? "instant" : String(e.cat),
          args: args,
          thread: thread(tid)
        };
        markers.push(m);
        m.thread.markers.push(m);
        if (ts < lo) lo = ts;
        if (ts > hi) hi = ts;
      }
    }

    let start = num(meta.start), end = num(meta.end);
    if (!isFinite(start) || (isFinite(lo) && lo < start)) start = isFinite(lo) ? lo : 0;
    if (!isFinite(end) || (isFinite(hi) && hi > end)) end = isFinite(hi) ? hi : start + 1;
    if (!(end > start)) end = start + 1;

    const tracks = Array.from(threads.values());
    tracks.sort(function (a, b) {
      const sa = isFinite(a.sortIndex) ? a.sortIndex : (a.number !== null ? a.number : Infinity);
      const sb = isFinite(b.sortIndex) ? b.sortIndex : (b.number !== null ? b.number : Infinity);
      return sa - sb || a.tid - b.tid;
    });
    /* A thread the data gives no number: the next one no thread has. */
    const used = new Set(tracks.map(function (t) { return t.number; }));
    let nextNumber = 1;
    tracks.forEach(function (t) {
      if (t.number === null) {
        while (used.has(nextNumber)) nextNumber++;
        t.number = nextNumber;
        used.add(nextNumber);
      }
      if (!t.name) t.name = "thread " + t.number + " (" + t.tid + ")";
      t.markers.sort(function (a, b) { return a.ts - b.ts; });
      let rows = t.byDepth;
      if (t.undepthed) {
        assignDepths(t.spans);
        rows = [];
        t.spans.forEach(function (s) { (rows[s.depth] || (rows[s.depth] = [])).push(s); });
      }
      t.byDepth = null;
      t.rows = [];
      for (let d = 0; d < rows.length; d++) {
        const list = rows[d] || [];
        if (!inOrder(list)) list.sort(byStart);
        const prefMax = new Float64Array(list.length);
        let m = -Infinity;
        for (let j = 0; j < list.length; j++) {
          if (list[j].end > m) m = list[j].end;
          prefMax[j] = m;
        }
        t.rows.push({ depth: d, spans: list, prefMax: prefMax });
      }
    });

    return {
      meta: meta,
      recording: meta.recording ? String(meta.recording) : null,
      clock: meta.clock ? String(meta.clock) : "instructions",
      processName: processName,
      start: start,
      end: end,
      tracks: tracks,
      spans: spans,
      markers: markers
    };
  }

  function byStart(a, b) { return a.ts - b.ts || b.end - a.end; }
  /* Rows are mostly in order already (hindsight writes each thread's calls by
     time): a look is cheaper than a sort. */
  function inOrder(list) {
    for (let j = 1; j < list.length; j++) if (byStart(list[j - 1], list[j]) > 0) return false;
    return true;
  }

  /* Depths for spans that came without args.depth: nesting by containment. */
  function assignDepths(list) {
    const sorted = list.slice().sort(byStart);
    const stack = [];
    sorted.forEach(function (s) {
      while (stack.length && stack[stack.length - 1].end <= s.ts) stack.pop();
      while (stack.length && stack[stack.length - 1].end < s.end) stack.pop();
      if (s.depth < 0) s.depth = stack.length;
      stack.push(s);
    });
  }

  /* First index j of a row with prefMax[j] > v: rows are sorted by start. */
  function firstEndingAfter(prefMax, v) {
    let a = 0, b = prefMax.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (prefMax[m] > v) b = m; else a = m + 1;
    }
    return a;
  }
  /* Last index j of a row with spans[j].ts <= v, or -1. */
  function lastStartingBy(spans, v) {
    let a = 0, b = spans.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (spans[m].ts <= v) a = m + 1; else b = m;
    }
    return a - 1;
  }

  /* ---------- the page ---------- */

  let model = null;
  let W = 800;                  // plot width, px
  let H = 100;                  // timeline svg height, px
  let x0 = d3.scaleLinear();    // the whole recording over [0, W]
  let x = x0.copy();            // the view
  let zoom = null;
  let maxK = 1;
  let selected = null;          // a span or a marker
  let query = "";
  let matches = [];             // spans that match, by time
  let matchAt = -1;
  let renderQueued = false;
  let firstRenderDone = false;

  const unitName = function (clock) {
    if (clock === "instructions") return "instructions";
    if (clock === "tsc") return "TSC ticks";
    return clock;
  };

  function layout() {
    let y = 0;
    model.tracks.forEach(function (t) {
      t.top = y;
      t.rowsTop = y + LABEL_H;
      t.height = LABEL_H + Math.max(1, t.rows.length) * ROW_H + TRACK_PAD;
      y += t.height;
    });
    H = Math.max(y, 40);
  }

  function buildDom() {
    svgEl.setAttribute("width", W);
    svgEl.setAttribute("height", H);
    svgEl.style.background = BACKGROUND;
    svgEl.textContent = "";

    const defs = svg("defs");
    const pat = svg("pattern", { id: "hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse",
                                 patternTransform: "rotate(45)" });
    pat.appendChild(svg("rect", { width: 6, height: 6, fill: "#dee2e6" }));
    pat.appendChild(svg("rect", { width: 2.5, height: 6, fill: "#adb5bd" }));
    defs.appendChild(pat);
    svgEl.appendChild(defs);

    model.tracks.forEach(function (t) {
      const g = svg("g", { "class": "track", "data-tid": t.tid });
      g.appendChild(svg("rect", { "class": "track-bg", x: 0, y: t.top, width: W, height: LABEL_H }));
      g.appendChild(svg("line", { "class": "track-sep", x1: 0, x2: W, y1: t.top + 0.5, y2: t.top + 0.5 }));
      t.gridG = svg("g", { "class": "grid" });
      g.appendChild(t.gridG);
      t.coverageG = svg("g", { "class": "coverage-layer" });
      g.appendChild(t.coverageG);
      t.spansG = svg("g", { "class": "spans" });
      g.appendChild(t.spansG);
      t.markersG = svg("g", { "class": "markers" });
      g.appendChild(t.markersG);
      /* The name last: over the markers' symbols in its strip, with a halo. */
      const label = svg("text", { "class": "track-label", x: 8, y: t.top + 15 });
      label.textContent = t.name;
      g.appendChild(label);
      const info = svg("text", { "class": "track-info", x: 8 + labelWidth(t.name) + 10, y: t.top + 15 });
      const n = t.spans.length;
      info.textContent = fmtInt(n) + (n === 1 ? " span" : " spans") +
        (t.rows.length ? " \u00b7 depth " + t.rows.length : "") +
        (t.markers.length ? " \u00b7 " + markerSummary(t.markers) : "");
      g.appendChild(info);
      t.node = g;
      svgEl.appendChild(g);
    });
    const bottom = svg("line", { "class": "track-sep", x1: 0, x2: W, y1: H - 0.5, y2: H - 0.5 });
    svgEl.appendChild(bottom);

    axisEl.setAttribute("width", W);
    axisEl.setAttribute("height", AXIS_H);
    axisEl.textContent = "";
    axisEl.appendChild(svg("g", { "class": "x-axis", transform: "translate(0," + (AXIS_H - 1) + ")" }));
  }

  function labelWidth(s) {
    measureCtx.font = LABEL_FONT;
    const w = measureCtx.measureText(s).width;
    measureCtx.font = FONT;
    return w;
  }

  function markerSummary(list) {
    const counts = {};
    list.forEach(function (m) { counts[m.cat] = (counts[m.cat] || 0) + 1; });
    return Object.keys(counts).map(function (c) {
      return counts[c] + " " + c + (counts[c] === 1 ? "" : /(s|sh|ch|x)$/.test(c) ? "es" : "s");
    }).join(", ");
  }

  /* ---------- drawing ---------- */

  function scheduleRender() {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(function () { renderQueued = false; render(); });
  }

  function render() {
    const started = performance.now();
    const dom = x.domain();
    const v0 = dom[0], v1 = dom[1];
    const k = (W - MARGIN_L - MARGIN_R) / (v1 - v0);   // px per unit
    /* What is drawn: the whole svg, its margins too. */
    const u0 = v0 - MARGIN_L / k, u1 = v1 + MARGIN_R / k;
    const searching = query !== "";

    const minEl = model.spans.length <= ALL_UP_TO ? 0 : MIN_W;
    /* Pass 1: per row, the spans in view at least minEl wide; the narrower
       ones mark the row's coverage pixels (bit 1; bit 2: a search match). */
    const rowsVis = [];
    let candidates = 0;
    for (const t of model.tracks) {
      for (const row of t.rows) {
        const list = row.spans;
        const vis = [];
        let cover = null;
        for (let j = firstEndingAfter(row.prefMax, u0); j < list.length; j++) {
          const s = list[j];
          if (s.ts >= u1) break;
          if (s.end <= u0 && s.dur > 0) continue;
          if (s.dur * k >= minEl) vis.push(s);
          else cover = markCover(cover, row, s, v0, k, searching);
        }
        candidates += vis.length;
        rowsVis.push({ row: row, vis: vis, cover: cover });
      }
    }
    /* Too many: raise the width threshold so that at most MAX_ELEMENTS remain. */
    let minW = minEl;
    if (candidates > MAX_ELEMENTS) {
      const widths = new Float64Array(candidates);
      let n = 0;
      for (const rv of rowsVis) for (const s of rv.vis) widths[n++] = s.dur;
      widths.sort();
      minW = widths[candidates - MAX_ELEMENTS] * k;
      if (widths[candidates - MAX_ELEMENTS - 1] === widths[candidates - MAX_ELEMENTS]) minW = nextUp(minW);
    }

    /* Pass 2: elements, and coverage paths. */
    let drawn = 0;
    let ri = 0;
    for (const t of model.tracks) {
      const elems = [];
      const coverPaths = [];
      for (const row of t.rows) {
        const rv = rowsVis[ri++];
        const y = t.rowsTop + row.depth * ROW_H + (ROW_H - SPAN_H) / 2;
        for (const s of rv.vis) {
          const w = s.dur * k;
          if (w < minW) {
            rv.cover = markCover(rv.cover, row, s, v0, k, searching);
            continue;
          }
          const xa = Math.max(0, MARGIN_L + (s.ts - v0) * k);
          const xb = Math.min(W, MARGIN_L + (s.end - v0) * k);
          s.rx = xa;
          s.rw = Math.max(1, xb - xa - (xb - xa > 3 ? 1 : 0));
          s.ry = y;
          elems.push(s);
        }
        if (rv.cover) {
          coverPaths.push({ key: "c" + row.depth, cls: "coverage", d: runsPath(rv.cover, y, 1) });
          if (searching) {
            const d = runsPath(rv.cover, y, 2);
            if (d) coverPaths.push({ key: "m" + row.depth, cls: "coverage-match", d: d });
          }
        }
      }
      drawn += elems.length;
      drawSpans(t, elems, searching);
      d3.select(t.coverageG).selectAll("path").data(coverPaths, function (c) { return c.key; })
        .join("path").attr("class", function (c) { return c.cls; }).attr("d", function (c) { return c.d; });
      drawMarkers(t, u0, u1, v0, k);
    }

    drawAxisAndGrid();
    updateStatus(v0, v1);
    body.dataset.spans = String(drawn);
    body.dataset.renderMs = String(Math.round(performance.now() - started));
    if (!firstRenderDone) {
      firstRenderDone = true;
      const r = svgEl.getBoundingClientRect();
      body.dataset.svgLeft = String(Math.round((r.left + window.scrollX) * 100) / 100);
      body.dataset.svgTop = String(Math.round((r.top + window.scrollY) * 100) / 100);
      body.dataset.background = BACKGROUND;
      body.dataset.readyMs = String(Math.round(performance.now()));
      body.dataset.ready = "1";
    }
  }

  function nextUp(v) { return v + Math.max(Math.abs(v) * 1e-12, 1e-12); }

  /* Marks the pixels of a span too narrow to be an element in its row's
     coverage buffer (one per row, kept between renders). */
  function markCover(buf, row, s, v0, k, searching) {
    if (buf === null) {
      buf = row.cover;
      if (!buf || buf.length !== W) buf = row.cover = new Uint8Array(W);
      else buf.fill(0);
    }
    const px0 = Math.max(0, Math.floor(MARGIN_L + (s.ts - v0) * k));
    const px1 = Math.min(W, Math.max(px0 + 1, Math.ceil(MARGIN_L + (s.end - v0) * k)));
    const bits = searching && s.match ? 3 : 1;
    for (let p = px0; p < px1; p++) buf[p] |= bits;
    return buf;
  }

  /* The runs of pixels of a row with BIT set, as one path of rects. */
  function runsPath(buf, y, bit) {
    let d = "";
    for (let p = 0; p < W; p++) {
      if (!(buf[p] & bit)) continue;
      let q = p + 1;
      while (q < W && (buf[q] & bit)) q++;
      d += "M" + p + "," + y + "h" + (q - p) + "v" + SPAN_H + "h" + (p - q) + "z";
      p = q;
    }
    return d;
  }

  function spanClass(s, searching) {
    let c = "span";
    if (s.cat === "merged") c += " merged";
    if (s.args.signal === true) c += " sig";
    if (searching) c += s.match ? " match" : " dim";
    if (selected === s) c += " selected";
    return c;
  }

  function drawSpans(t, elems, searching) {
    d3.select(t.spansG).selectAll("g.span")
      .data(elems, function (s) { return s.i; })
      .join(function (enter) {
        const g = enter.append("g")
          .attr("data-tid", function (s) { return s.tid; })
          .attr("data-depth", function (s) { return s.depth; })
          .attr("data-name", function (s) { return s.name; })
          .attr("data-cat", function (s) { return s.cat; })
          .attr("data-first", function (s) { return s.args.first === undefined ? "" : s.args.first; })
          .attr("data-last", function (s) { return s.args.last === undefined ? "" : s.args.last; });
        g.append("rect")
          .attr("height", SPAN_H)
          .attr("fill", function (s) { return s.cat === "merged" ? "url(#hatch)" : colourOf(s.name); });
        return g;
      })
      .each(function (s) {
        this.setAttribute("class", spanClass(s, searching));
        const rect = this.firstChild;
        rect.setAttribute("x", round2(s.rx));
        rect.setAttribute("y", s.ry);
        rect.setAttribute("width", round2(s.rw));
        const label = fitLabel(s.cat === "merged" ? mergedLabel(s) : s.name, s.rw);
        let text = rect.nextSibling;
        if (label === null) {
          if (text) this.removeChild(text);
          return;
        }
        if (!text) {
          text = svg("text");
          this.appendChild(text);
        }
        text.setAttribute("x", round2(s.rx + TEXT_PAD));
        text.setAttribute("y", s.ry + SPAN_H / 2 + 4);
        if (text.textContent !== label) text.textContent = label;
      });
  }

  function round2(v) { return Math.round(v * 100) / 100; }

  function mergedLabel(s) {
    const n = num(s.args.calls);
    return isFinite(n) ? fmtInt(n) + (n === 1 ? " call" : " calls") : s.name;
  }

  const SYMBOLS = {
    signal: d3.symbol(d3.symbolTriangle, 60)(),
    gap: d3.symbol(d3.symbolDiamond, 56)(),
    crash: d3.symbol(d3.symbolCross, 80)()
  };

  function drawMarkers(t, u0, u1, v0, k) {
    const list = t.markers;
    const vis = [];
    let lastPx = -Infinity, lastCat = null;
    let j = lastStartingBy(list, u0 - 1e-9) + 1;
    for (; j < list.length; j++) {
      const m = list[j];
      if (m.ts > u1) break;
      const px = MARGIN_L + (m.ts - v0) * k;
      if (Math.round(px) === Math.round(lastPx) && m.cat === lastCat && m !== selected) continue;
      m.px = px;
      lastPx = px;
      lastCat = m.cat;
      vis.push(m);
      if (vis.length >= 3000) break;
    }
    d3.select(t.markersG).selectAll("g.marker")
      .data(vis, function (m) { return m.i; })
      .join(function (enter) {
        const g = enter.append("g")
          .attr("class", "marker")
          .attr("data-cat", function (m) { return m.cat; })
          .attr("data-tid", function (m) { return m.tid; })
          .attr("data-position", function (m) {
            return m.args.position === undefined ? "" : m.args.position;
          });
        g.append("title").text(function (m) {
          return m.name + (m.args.position !== undefined ? " (position " + m.args.position + ")" : "");
        });
        g.append("line")
          .attr("x1", 0).attr("x2", 0)
          .attr("y1", LABEL_H - 4)
          .attr("y2", t.height - TRACK_PAD);
        g.append("path")
          .attr("d", function (m) { return SYMBOLS[m.cat] || SYMBOLS.gap; })
          .attr("transform", function (m) {
            return "translate(0," + (LABEL_H / 2) + ")" +
              (m.cat === "signal" ? " rotate(180)" : m.cat === "crash" ? " rotate(45)" : "");
          });
        return g;
      })
      .attr("transform", function (m) { return "translate(" + round2(m.px) + "," + t.top + ")"; })
      .classed("selected", function (m) { return m === selected; });
  }

  function drawAxisAndGrid() {
    const n = Math.max(2, Math.floor(W / 110));
    const ticks = x.ticks(n);
    const si = x.tickFormat(n, "~s");
    /* 1.2M where that is shorter, 120,205 where the SI form would be longer. */
    const fmt = function (v) {
      if (v === 0) return "0";
      const a = si(v);
      if (!Number.isInteger(v)) return a;
      const b = fmtInt(v);
      return b.length < a.length ? b : a;
    };
    d3.select(axisEl).select("g.x-axis")
      .call(d3.axisTop(x).ticks(n).tickFormat(fmt).tickSizeOuter(0).tickSize(5));
    model.tracks.forEach(function (t) {
      d3.select(t.gridG).selectAll("line")
        .data(ticks)
        .join("line")
        .attr("x1", function (v) { return Math.round(x(v)) + 0.5; })
        .attr("x2", function (v) { return Math.round(x(v)) + 0.5; })
        .attr("y1", t.rowsTop)
        .attr("y2", t.top + t.height);
    });
  }

  function updateStatus(v0, v1) {
    const unit = unitName(model.clock);
    const zoomK = (model.end - model.start) / (v1 - v0);
    document.getElementById("view-range").textContent =
      "view " + fmtNum(Math.round(v0)) + " \u2013 " + fmtNum(Math.round(v1)) + " " + unit +
      " (" + d3.format(".3~s")(v1 - v0) + " wide" +
      (zoomK > 1.0001 ? ", zoom \u00d7" + d3.format(".3~s")(zoomK) : "") + ")";
  }

  /* ---------- zoom and pan ---------- */

  function setupZoom() {
    zoom = d3.zoom()
      .scaleExtent([1, maxK])
      .extent(function () { return [[MARGIN_L, 0], [W - MARGIN_R, Math.max(1, plotEl.clientHeight)]]; })
      .translateExtent([[MARGIN_L, -Infinity], [W - MARGIN_R, Infinity]])
      .clickDistance(4)
      /* d3's default is 0.002 per pixel of deltaY: a recording of billions of
         instructions wants faster. Trackpad pinches come as ctrl+wheel. */
      .wheelDelta(function (event) {
        return -event.deltaY * (event.deltaMode === 1 ? 0.1 : event.deltaMode ? 2 : 0.004) *
          (event.ctrlKey ? 3 : 1);
      })
      .filter(function (event) {
        return (!event.ctrlKey || event.type === "wheel") && !event.button &&
          !(event.type === "wheel" && (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)));
      })
      .on("start", function (event) {
        if (event.sourceEvent && event.sourceEvent.type === "mousedown") plotEl.classList.add("dragging");
        hideTooltip();
      })
      .on("zoom", function (event) {
        x = event.transform.rescaleX(x0);
        scheduleRender();
      })
      .on("end", function () { plotEl.classList.remove("dragging"); });
    d3.select(plotEl).call(zoom).on("dblclick.zoom", null);

    /* Horizontal wheel (trackpads) and Shift+wheel pan. */
    plotEl.addEventListener("wheel", function (event) {
      const horizontal = Math.abs(event.deltaX) > Math.abs(event.deltaY);
      if (!horizontal && !event.shiftKey) return;
      event.preventDefault();
      const scale = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? W : 1;
      const delta = (horizontal ? event.deltaX : event.deltaY) * scale;
      d3.select(plotEl).call(zoom.translateBy, -delta / d3.zoomTransform(plotEl).k, 0);
    }, { passive: false });

    /* A vertical drag scrolls the page, as the horizontal one pans the view. */
    let dragY = null;
    plotEl.addEventListener("mousedown", function (event) {
      if (event.button === 0) dragY = event.clientY;
    });
    window.addEventListener("mousemove", function (event) {
      if (dragY === null) return;
      if (!(event.buttons & 1)) { dragY = null; return; }
      const dy = event.clientY - dragY;
      dragY = event.clientY;
      if (dy) window.scrollBy(0, -dy);
    }, true);
    window.addEventListener("mouseup", function () { dragY = null; }, true);
  }

  function transformFor(a, b) {
    const k = Math.max(1, Math.min(maxK, (model.end - model.start) / Math.max(b - a, 1e-12)));
    const c = (a + b) / 2;
    return d3.zoomIdentity.translate((MARGIN_L + W - MARGIN_R) / 2 - k * x0(c), 0).scale(k);
  }

  function zoomTo(a, b, animate) {
    const sel = d3.select(plotEl);
    const tr = transformFor(a, b);
    if (animate) sel.transition().duration(450).call(zoom.transform, tr);
    else sel.call(zoom.transform, tr);
  }

  function resetZoom() {
    d3.select(plotEl).transition().duration(350).call(zoom.transform, d3.zoomIdentity);
  }

  function zoomBy(factor) {
    d3.select(plotEl).transition().duration(180)
      .call(zoom.scaleBy, factor, [(MARGIN_L + W - MARGIN_R) / 2, 0]);
  }

  function panBy(fraction) {
    d3.select(plotEl).transition().duration(180)
      .call(zoom.translateBy, -fraction * W / d3.zoomTransform(plotEl).k, 0);
  }

  /* The view stays on the same stretch of time when the width changes. */
  function resize() {
    const w = Math.max(200, Math.floor(plotEl.clientWidth));
    if (w === W) return;
    const dom = x.domain();
    W = w;
    x0.range([MARGIN_L, W - MARGIN_R]);
    maxK = Math.max(1, (model.end - model.start) * MAX_ZOOM_PX_PER_UNIT / (W - MARGIN_L - MARGIN_R));
    zoom.scaleExtent([1, maxK]).translateExtent([[MARGIN_L, -Infinity], [W - MARGIN_R, Infinity]]);
    buildDom();
    d3.select(plotEl).call(zoom.transform, transformFor(dom[0], dom[1]));
    x = d3.zoomTransform(plotEl).rescaleX(x0);
    render();
  }

  /* ---------- search ---------- */

  function runSearch(q) {
    query = q.trim().toLowerCase();
    matches = [];
    matchAt = -1;
    const lowerCache = new Map();
    function lower(s) {
      let v = lowerCache.get(s);
      if (v === undefined) { v = s.toLowerCase(); lowerCache.set(s, v); }
      return v;
    }
    for (const s of model.spans) {
      s.match = query !== "" && (lower(s.name).includes(query) ||
        (s.cat === "merged" && typeof s.args.functions === "string" &&
         lower(s.args.functions).includes(query)));
      if (s.match) matches.push(s);
    }
    matches.sort(function (a, b) { return a.ts - b.ts || a.depth - b.depth; });
    svgEl.classList.toggle("searching", query !== "");
    searchCountEl.classList.toggle("none", query !== "" && matches.length === 0);
    searchCountEl.textContent = query === "" ? "" :
      matches.length === 0 ? "no match" :
      fmtInt(matches.length) + (matches.length === 1 ? " match" : " matches");
    scheduleRender();
  }

  function nextMatch(step) {
    if (!matches.length) return;
    if (matchAt < 0) {
      /* Start from the view: the first match that begins in it (or after). */
      const v0 = x.domain()[0];
      let j = matches.findIndex(function (s) { return s.end > v0; });
      if (j < 0) j = 0;
      matchAt = step > 0 ? j : (j - 1 + matches.length) % matches.length;
    } else {
      matchAt = (matchAt + step + matches.length) % matches.length;
    }
    const s = matches[matchAt];
    searchCountEl.textContent = fmtInt(matchAt + 1) + " of " + fmtInt(matches.length);
    focusSpan(s);
  }

  function focusSpan(s) {
    const len = Math.max(s.dur, (model.end - model.start) / maxK);
    zoomTo(s.ts - len * 0.6, s.ts + len * 1.6, true);
    select(s);
    scrollRowIntoView(s);
  }

  function scrollRowIntoView(s) {
    const r = svgEl.getBoundingClientRect();
    const yTop = r.top + s.thread.rowsTop + s.depth * ROW_H;
    const viewTop = AXIS_H + 4, viewBottom = window.innerHeight - 8;
    if (yTop < viewTop || yTop + ROW_H > viewBottom)
      window.scrollBy({ top: yTop - (viewTop + viewBottom) / 2, behavior: "smooth" });
  }

  /* ---------- details ---------- */

  function select(item) {
    selected = item;
    showDetails(item);
    scheduleRender();
  }

  function threadText(t) {
    return t.name.indexOf("thread " + t.number + " ") === 0 || t.name === "thread " + t.number ?
      t.name : t.name + " (thread " + t.number + ")";
  }

  function replayCommand(thread, position) {
    const rec = model.recording ? shellQuote(model.recording) : "REC";
    return "hindsight replay " + rec + " -ex 'thread " + thread.number + "' -ex 'goto " + position + "'";
  }

  function addCommand(parent, id, text, label) {
    if (label) parent.appendChild(el("h3", null, label));
    const box = el("div", { "class": "cmd" });
    const code = el("code", { id: id }, text);
    const btn = el("button", { type: "button", title: "Copy the command" }, "Copy");
    btn.addEventListener("click", function () { copyText(text, btn); });
    box.appendChild(code);
    box.appendChild(btn);
    parent.appendChild(box);
  }

  function copyText(text, btn) {
    function done(ok) {
      btn.textContent = ok ? "Copied" : "Select";
      btn.classList.toggle("done", ok);
      setTimeout(function () { btn.textContent = "Copy"; btn.classList.remove("done"); }, 1400);
    }
    function fallback() {
      const ta = el("textarea");
      ta.value = text;
      ta.style.position = "fixed";
      ta.style.opacity = "0";
      document.body.appendChild(ta);
      ta.select();
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(ta);
      done(ok);
    }
    if (navigator.clipboard && navigator.clipboard.writeText)
      navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
    else fallback();
  }

  function dl(parent, rows) {
    const list = el("dl");
    rows.forEach(function (r) {
      if (r[1] === null || r[1] === undefined || r[1] === "") return;
      list.appendChild(el("dt", null, r[0]));
      const dd = el("dd", r[2] ? { title: r[2] } : null, r[1]);
      list.appendChild(dd);
    });
    parent.appendChild(list);
  }

  /* The calls that contain s, outermost first. */
  function callersOf(s) {
    const chain = [];
    for (let d = s.depth - 1; d >= 0; d--) {
      const row = s.thread.rows[d];
      if (!row) continue;
      let j = lastStartingBy(row.spans, s.ts);
      while (j >= 0 && row.spans[j].end < s.end) j--;
      if (j >= 0 && row.spans[j].ts <= s.ts && row.spans[j].end >= s.end) chain.unshift(row.spans[j]);
    }
    return chain;
  }

  function showDetails(item) {
    detailsEl.textContent = "";
    if (!item) {
      detailsEl.appendChild(el("p", { "class": "hint" }, "Click a call to see it here."));
      return;
    }
    const unit = unitName(model.clock);
    const t = item.thread;
    const isSpan = item.dur !== undefined;
    const a = item.args;
    const h = el("h2");
    if (isSpan) {
      const sw = el("span", { "class": "swatch" });
      sw.style.background = item.cat === "merged" ? "repeating-linear-gradient(45deg,#adb5bd 0 2px,#dee2e6 2px 5px)" : colourOf(item.name);
      h.appendChild(sw);
    }
    h.appendChild(document.createTextNode(item.cat === "merged" ? mergedLabel(item) : item.name));
    detailsEl.appendChild(h);

    let kind;
    if (!isSpan) kind = item.cat === "signal" ? "signal" : item.cat === "gap" ? "gap in the trace" :
      item.cat === "crash" ? "crash" : item.cat;
    else if (item.cat === "merged") kind = "calls shorter than the resolution, merged";
    else if (a.signal === true) kind = "signal handler, invoked asynchronously";
    else kind = item.cat === "call" ? "function call" : item.cat;
    detailsEl.appendChild(el("div", { "class": "kind" }, kind));

    if (isSpan) {
      const loc = a.file ? String(a.file) + (a.line !== undefined ? ":" + a.line : "") : null;
      const pos = a.first !== undefined ?
        fmtNum(num(a.first)) + " \u2026 " + fmtNum(num(a.last)) : null;
      const rows = [];
      if (item.cat === "merged") {
        rows.push(["calls", a.calls !== undefined ? fmtNum(num(a.calls)) : null]);
        rows.push(["functions", a.functions !== undefined ? String(a.functions) : null]);
      } else {
        rows.push(["function", item.name]);
      }
      rows.push(["source", loc]);
      rows.push(["thread", threadText(t)]);
      rows.push(["depth", String(item.depth)]);
      rows.push(["positions", pos, "history positions of the thread, as `hindsight history` and `goto` use them"]);
      rows.push(["time", fmtNum(item.ts) + " \u2026 " + fmtNum(item.end) + " " + unit]);
      if (model.clock === "instructions")
        rows.push(["instructions", fmtNum(item.dur), "instructions of all threads from the call to its return"]);
      else
        rows.push(["duration", fmtNum(item.dur) + " " + unit]);
      dl(detailsEl, rows);

      const callers = callersOf(item);
      if (callers.length) {
        detailsEl.appendChild(el("h3", null, "called from"));
        const ul = el("ul", { "class": "stack" });
        callers.forEach(function (c, idx) {
          const li = el("li");
          li.style.paddingLeft = (idx * 8) + "px";
          const b = el("button", { type: "button", title: "Show this call" },
            c.cat === "merged" ? mergedLabel(c) : c.name);
          b.addEventListener("click", function () { select(c); });
          li.appendChild(b);
          ul.appendChild(li);
        });
        detailsEl.appendChild(ul);
      }

      const first = a.first !== undefined ? a.first : "FIRST";
      addCommand(detailsEl, "details-cmd", replayCommand(t, first), "open its start in the front end");
      if (item.cat === "merged") {
        const rec = model.recording ? shellQuote(model.recording) : "REC";
        addCommand(detailsEl, "details-cmd-part",
          "hindsight timeline " + rec + " " + plain(item.ts) + "," + plain(item.end) + " -o part.html",
          "draw this part in detail");
      }
      const zoomBtn = el("button", { type: "button" }, "Zoom to this call");
      zoomBtn.addEventListener("click", function () { focusSpan(item); });
      detailsEl.appendChild(zoomBtn);
    } else {
      dl(detailsEl, [
        ["thread", threadText(t)],
        ["position", a.position !== undefined ? fmtNum(num(a.position)) : null],
        ["time", fmtNum(item.ts) + " " + unit]
      ]);
      if (a.position !== undefined)
        addCommand(detailsEl, "details-cmd", replayCommand(t, a.position), "open it in the front end");
    }
  }

  /* ---------- tooltip ---------- */

  function showTooltip(event, item) {
    const isSpan = item.dur !== undefined;
    tooltipEl.textContent = "";
    const b = el("b", null, isSpan && item.cat === "merged" ? mergedLabel(item) : item.name);
    tooltipEl.appendChild(b);
    let lines = [];
    if (isSpan) {
      if (item.cat === "merged" && item.args.functions) lines.push(String(item.args.functions));
      if (item.args.file) lines.push(item.args.file + (item.args.line !== undefined ? ":" + item.args.line : ""));
      lines.push(fmtNum(item.dur) + " " + unitName(model.clock) + " \u00b7 depth " + item.depth);
      if (item.args.signal === true) lines.push("signal handler");
    } else if (item.args.position !== undefined) {
      lines.push("position " + fmtNum(num(item.args.position)));
    }
    tooltipEl.appendChild(document.createTextNode("\n" + lines.join("\n")));
    tooltipEl.hidden = false;
    const pad = 14;
    let left = event.clientX + pad, top = event.clientY + pad;
    const r = tooltipEl.getBoundingClientRect();
    if (left + r.width > window.innerWidth - 4) left = event.clientX - pad - r.width;
    if (top + r.height > window.innerHeight - 4) top = event.clientY - pad - r.height;
    tooltipEl.style.left = Math.max(4, left) + "px";
    tooltipEl.style.top = Math.max(4, top) + "px";
  }
  function hideTooltip() { tooltipEl.hidden = true; }

  function itemOf(target) {
    const g = target && target.closest ? target.closest("g.span, g.marker") : null;
    return g ? d3.select(g).datum() : null;
  }

  function setupEvents() {
    svgEl.addEventListener("click", function (event) {
      const item = itemOf(event.target);
      if (item) select(item);
    });
    svgEl.addEventListener("dblclick", function (event) {
      const item = itemOf(event.target);
      if (item && item.dur !== undefined) focusSpan(item);
    });
    svgEl.addEventListener("mousemove", function (event) {
      if (event.buttons) { hideTooltip(); return; }
      const item = itemOf(event.target);
      if (item) showTooltip(event, item); else hideTooltip();
    });
    svgEl.addEventListener("mouseleave", hideTooltip);
    document.getElementById("reset-zoom").addEventListener("click", resetZoom);

    let searchTimer = null;
    searchEl.addEventListener("input", function () {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(function () { runSearch(searchEl.value); }, 120);
    });
    searchEl.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        clearTimeout(searchTimer);
        if (searchEl.value.trim().toLowerCase() !== query) runSearch(searchEl.value);
        nextMatch(event.shiftKey ? -1 : 1);
      } else if (event.key === "Escape") {
        searchEl.value = "";
        runSearch("");
        searchEl.blur();
      }
    });
    document.addEventListener("keydown", function (event) {
      const tag = event.target && event.target.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || event.ctrlKey || event.metaKey || event.altKey) return;
      switch (event.key) {
        case "/": event.preventDefault(); searchEl.focus(); searchEl.select(); break;
        case "w": case "W": case "+": case "=": zoomBy(1.6); break;
        case "s": case "S": case "-": zoomBy(1 / 1.6); break;
        case "a": case "A": case "ArrowLeft": panBy(-0.2); break;
        case "d": case "D": case "ArrowRight": panBy(0.2); break;
        case "0": resetZoom(); break;
        case "Escape": select(null); break;
        default: return;
      }
    });
    let resizeTimer = null;
    window.addEventListener("resize", function () {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(resize, 100);
    });
  }

  /* ---------- start ---------- */

  function fail(message) {
    plotEl.textContent = "";
    plotEl.appendChild(el("p", { "class": "error" }, message));
    body.dataset.error = message;
    body.dataset.spans = "0";
    body.dataset.ready = "error";
  }

  function main() {
    document.getElementById("title").textContent = document.title;
    const t0 = performance.now();
    let trace;
    try {
      trace = readTrace();
    } catch (e) {
      fail("The timeline's data could not be read: " + e.message);
      return;
    }
    const t1 = performance.now();
    model = build(trace);
    trace = null;
    const t2 = performance.now();
    const unit = unitName(model.clock);
    const parts = [];
    if (model.recording) parts.push(model.recording);
    if (model.processName) parts.push(model.processName);
    parts.push(model.tracks.length + (model.tracks.length === 1 ? " thread" : " threads"));
    parts.push(fmtInt(model.spans.length) + (model.spans.length === 1 ? " span" : " spans"));
    parts.push("clock: " + unit);
    if (model.meta.exit && model.meta.exit !== "unknown") parts.push("exit: " + String(model.meta.exit));
    document.getElementById("subtitle").textContent = parts.join(" \u00b7 ");

    if (!model.tracks.length) {
      plotEl.textContent = "";
      plotEl.appendChild(el("p", { "class": "message" }, "This recording has no calls to draw."));
      body.dataset.spans = "0";
      body.dataset.background = BACKGROUND;
      body.dataset.ready = "1";
      return;
    }

    W = Math.max(200, Math.floor(plotEl.clientWidth));
    x0 = d3.scaleLinear().domain([model.start, model.end]).range([MARGIN_L, W - MARGIN_R]);
    x = x0.copy();
    maxK = Math.max(1, (model.end - model.start) * MAX_ZOOM_PX_PER_UNIT / (W - MARGIN_L - MARGIN_R));
    layout();
    buildDom();
    setupZoom();
    setupEvents();
    render();
    const t3 = performance.now();
    /* Where the first second went, for the curious and for performance tests. */
    body.dataset.timing = "start " + Math.round(t0) + " ms, read " + Math.round(t1 - t0) +
      " ms, build " + Math.round(t2 - t1) + " ms, draw " + Math.round(t3 - t2) + " ms";
  }

  try {
    main();
  } catch (e) {
    fail("The timeline could not be drawn: " + (e && e.message ? e.message : e));
    throw e;
  }
})();
