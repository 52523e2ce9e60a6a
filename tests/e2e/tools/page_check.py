#!/usr/bin/env python3
"""page_check.py: open a timeline page (hindsight timeline -o x.html) in
headless Chromium and report what it drew, as one JSON object on stdout.

    page_check.py PAGE.html [--pixel-check] [--screenshot OUT.png]
                  [--click TID:FIRST] [--search TEXT]

Chromium runs twice, each time limited to --timeout seconds: --dump-dom (the
page's script has run, within a virtual time budget) and --screenshot. The
dumped DOM is read with html.parser and gives:

  ready        body[data-ready] == "1" (the page's first render is done)
  error        body[data-error], the page's own word on a failure, or null
  spans_attr   body[data-spans]: the number of span elements it says it drew
  svg          {"left", "top"}: svg#timeline's offset in CSS pixels
  spans        [{tid, depth, name, cat, first, last, x, y, width, height, text}]
               for every g.span (x, y, width, height: its <rect>, svg units)
  tracks       [{tid, label}] for every g.track (label: its .track-label text)
  markers      [{cat, tid, position, title}] for every g.marker
  screenshot   {"width", "height", "colors": distinct colours in the PNG}

--pixel-check: for up to 20 spans wider than 4 px whose rect centre lies in
the screenshot, the pixel there (svg.left + x + w/2, svg.top + y + h/2) must
differ from the page's background (body[data-background], else the commonest
colour); a span drawn where nothing shows fails the check (exit 1). The PNG is
decoded here: zlib and the five PNG filters, 8-bit grey, RGB or RGBA.

--click TID:FIRST, --search TEXT, --wheel N and --drag DX drive a third
Chromium over the DevTools protocol (--remote-debugging-pipe), in that order:
a real mouse click at the centre of the span of thread TID whose first
position is FIRST, then the text of #details and code#details-cmd ("click");
typing TEXT into the search box and pressing Enter, then its match count and
the spans marked as matches ("search"); N wheel notches (zoom in, or out if
N < 0) and a drag of DX pixels over the plot, then the view's range and the
spans drawn ("view"). --final-screenshot keeps a screenshot taken after them.

Exit status: 0 when the page is ready and every check passed, 1 when a check
failed or the page did not become ready (the JSON is printed all the same,
the reason goes to stderr), 2 when Chromium could not be run. Chromium's own
messages go to a log file, never to stdout. Python 3 standard library only.
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from html.parser import HTMLParser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--force-device-scale-factor=1", "--hide-scrollbars", "--mute-audio",
]


class Failure(Exception):
    pass


class ChromiumError(Exception):
    pass


# ---------------------------------------------------------------- chromium

def run_chromium(chromium, url, extra, window, timeout, log):
    """Run chromium once with EXTRA flags; its stdout as bytes."""
    profile = tempfile.mkdtemp(prefix="hindsight-page-check.")
    cmd = [chromium] + CHROMIUM_FLAGS + [
        "--user-data-dir=" + profile, "--window-size=%d,%d" % window] + extra + [url]
    try:
        with open(log, "ab") as err:
            err.write(("\n$ %s\n" % " ".join(cmd)).encode())
            err.flush()
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=err, start_new_session=True)
            try:
                out, _ = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                kill_group(proc)
                raise ChromiumError("chromium took more than %g s (%s)" % (timeout, " ".join(extra)))
        if proc.returncode != 0:
            raise ChromiumError("chromium exited with status %d (%s); its log: %s"
                                % (proc.returncode, " ".join(extra), log))
        return out
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


# ---------------------------------------------------------------- the DOM

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "param", "source", "track", "wbr"}


def fnum(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def inum(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        f = fnum(v)
        return int(f) if f is not None and f.is_integer() else None


class DomReader(HTMLParser):
    """Collects body's data attributes, spans, tracks and markers."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # [tag, role, record]
        self.body = {}
        self.svg = None
        self.spans = []
        self.tracks = []
        self.markers = []

    def _open(self, role):
        for tag, r, rec in reversed(self.stack):
            if r == role:
                return rec
        return None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        role, rec = None, None
        if tag == "body":
            self.body = {k[5:]: v for k, v in a.items() if k.startswith("data-")}
        elif tag == "svg" and a.get("id") == "timeline":
            self.svg = a
        elif tag == "g" and "span" in classes:
            rec = {"tid": inum(a.get("data-tid")), "depth": inum(a.get("data-depth")),
                   "name": a.get("data-name"), "cat": a.get("data-cat"),
                   "first": inum(a.get("data-first")), "last": inum(a.get("data-last")),
                   "x": None, "y": None, "width": None, "height": None, "text": None,
                   "classes": classes}
            self.spans.append(rec)
            role = "span"
        elif tag == "g" and "track" in classes:
            rec = {"tid": inum(a.get("data-tid")), "label": None}
            self.tracks.append(rec)
            role = "track"
        elif tag == "g" and "marker" in classes:
            rec = {"cat": a.get("data-cat"), "tid": inum(a.get("data-tid")),
                   "position": inum(a.get("data-position")), "title": None}
            self.markers.append(rec)
            role = "marker"
        elif tag == "rect":
            span = self._open("span")
            if span is not None and span["x"] is None:
                for k in ("x", "y", "width", "height"):
                    span[k] = fnum(a.get(k))
        elif tag == "text":
            if "track-label" in classes and self._open("track") is not None:
                role, rec = "track-label", self._open("track")
                rec["label"] = ""
            elif self._open("span") is not None:
                role, rec = "span-text", self._open("span")
                rec["text"] = ""
        elif tag == "title" and self._open("marker") is not None:
            role, rec = "marker-title", self._open("marker")
            rec["title"] = ""
        elif "track-label" in classes and self._open("track") is not None:
            role, rec = "track-label", self._open("track")
            rec["label"] = ""
        if tag not in VOID:
            self.stack.append([tag, role, rec])

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        for tag, role, rec in reversed(self.stack):
            if role == "track-label":
                rec["label"] += data
                return
            if role == "span-text":
                rec["text"] += data
                return
            if role == "marker-title":
                rec["title"] += data
                return
            if role in ("span", "track", "marker"):
                return


# ---------------------------------------------------------------- PNG

def decode_png(data):
    """(width, height, channels, rows): rows is a list of bytes, 8-bit samples."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failure("the screenshot is not a PNG file")
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if ihdr is None:
        raise Failure("the screenshot has no IHDR")
    width, height, depth, ctype, _comp, _filt, interlace = ihdr
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace != 0:
        raise Failure("the screenshot is a PNG this tool does not read (depth %d, colour type %d, "
                      "interlace %d)" % (depth, ctype, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    bpp = channels
    rows = []
    prev = bytearray(stride)
    p = 0
    for _ in range(height):
        ftype = raw[p]
        line = bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        if ftype == 0:
            pass
        elif ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                if i >= bpp:
                    a, c = line[i - bpp], prev[i - bpp]
                else:
                    a, c = 0, 0
                b = prev[i]
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        else:
            raise Failure("the screenshot has a bad PNG filter type %d" % ftype)
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def pixel(img, px, py):
    width, height, channels, rows = img
    row = rows[py]
    v = row[px * channels:(px + 1) * channels]
    if channels == 1 or channels == 2:
        return (v[0], v[0], v[0])
    return (v[0], v[1], v[2])


def colours(img):
    width, height, channels, rows = img
    seen = set()
    for row in rows:
        if channels >= 3:
            seen.update(zip(row[0::channels], row[1::channels], row[2::channels]))
        else:
            seen.update(row[0::channels])
    return seen


def commonest(img):
    width, height, channels, rows = img
    counts = {}
    for row in rows[::7]:
        for i in range(0, width * channels, channels * 5):
            c = tuple(row[i:i + 3]) if channels >= 3 else (row[i],) * 3
            counts[c] = counts.get(c, 0) + 1
    return max(counts, key=counts.get)


def parse_colour(s):
    s = (s or "").strip()
    if s.startswith("#") and len(s) == 7:
        return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))
    if s.startswith("#") and len(s) == 4:
        return tuple(int(c * 2, 16) for c in s[1:])
    if s.startswith("rgb"):
        parts = s[s.index("(") + 1:s.index(")")].split(",")
        return tuple(int(float(v)) for v in parts[:3])
    return None


def pixel_check(result, img):
    """Messages about spans whose centre pixel is the background."""
    background = parse_colour(result["background"]) or commonest(img)
    svg = result["svg"]
    width, height = img[0], img[1]
    candidates = [s for s in result["spans"]
                  if s["width"] is not None and s["width"] > 4 and s["height"]]
    inside = []
    for s in candidates:
        px = int(svg["left"] + s["x"] + s["width"] / 2)
        py = int(svg["top"] + s["y"] + s["height"] / 2)
        if 0 <= px < width and 0 <= py < height:
            inside.append((s, px, py))
    if len(inside) > 20:        # spread over the page, not the first 20
        inside = [inside[i * len(inside) // 20] for i in range(20)]
    bad = []
    for s, px, py in inside:
        if pixel(img, px, py) == background:
            bad.append("span %s (thread %s, depth %s, first %s) at svg x=%g y=%g w=%g: screenshot "
                       "pixel (%d,%d) is the background colour #%02x%02x%02x"
                       % (s["name"], s["tid"], s["depth"], s["first"], s["x"], s["y"], s["width"],
                          px, py) + tuple(background))
    if candidates and not inside:
        bad.append("no span wider than 4 px has its centre inside the screenshot")
    result["pixel_check"] = {"checked": len(inside), "failed": len(bad),
                             "background": "#%02x%02x%02x" % tuple(background)}
    return bad


# ---------------------------------------------------------------- DevTools

def high_fd(fd):
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 5)
    os.close(fd)
    return new


class DevTools:
    """The DevTools protocol over --remote-debugging-pipe (fds 3 and 4)."""

    def __init__(self, chromium, window, timeout, log):
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="hindsight-page-check.")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # The child's ends go to fds 3 and 4 between fork and exec: first above
        # 4 (close-on-exec), so that neither dup2 overwrites the other.
        to_child_r, from_child_w = [high_fd(fd) for fd in (to_child_r, from_child_w)]
        cmd = [chromium] + CHROMIUM_FLAGS + [
            "--user-data-dir=" + self.profile, "--window-size=%d,%d" % window,
            "--remote-debugging-pipe", "about:blank"]

        def child_fds():
            os.dup2(to_child_r, 3)      # dup2 leaves 3 and 4 inheritable
            os.dup2(from_child_w, 4)

        self.err = open(log, "ab")
        self.err.write(("\n$ %s\n" % " ".join(cmd)).encode())
        self.err.flush()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.err, stderr=self.err,
                                     start_new_session=True, close_fds=False, preexec_fn=child_fds)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.session = None

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.send("Browser.close", session=False, wait=False)
                except (OSError, ChromiumError):
                    pass
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    kill_group(self.proc)
        finally:
            for fd in (self.to_child, self.from_child):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.err.close()
            shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self):
        while b"\0" not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise ChromiumError("chromium took more than %g s (DevTools)" % self.timeout)
            ready, _, _ = select.select([self.from_child], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise ChromiumError("chromium closed its DevTools pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, wait=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        if not wait:
            return None
        while True:
            reply = self._read_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise ChromiumError("DevTools %s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})

    def open(self, url, window):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        att = self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True},
                        session=False)
        self.session = att["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": window[0], "height": window[1], "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})

    def eval(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise ChromiumError("page script failed: %s" % r["exceptionDetails"].get("text"))
        return r.get("result", {}).get("value")

    def wait_for(self, expression, what):
        while True:
            v = self.eval(expression)
            if v:
                return v
            if time.monotonic() > self.deadline:
                raise ChromiumError("timed out waiting for %s" % what)
            time.sleep(0.05)

    def click(self, px, py):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params = {"type": kind, "x": px, "y": py, "button": "left" if kind != "mouseMoved" else "none",
                      "buttons": 1 if kind == "mousePressed" else 0}
            if kind != "mouseMoved":
                params["clickCount"] = 1
            self.send("Input.dispatchMouseEvent", params)

    def key(self, key, code, keycode, text=None):
        down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": keycode,
                "nativeVirtualKeyCode": keycode}
        if text:
            down["text"] = text
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                             "windowsVirtualKeyCode": keycode,
                                             "nativeVirtualKeyCode": keycode})


def interact(args, url, window, log):
    out = {}
    dt = DevTools(args.chromium, window, args.timeout, log)
    try:
        dt.open(url, window)
        dt.wait_for("document.body && document.body.dataset.ready || ''", "the page's data-ready")
        if args.click:
            tid, first = args.click
            where = dt.eval("""(function () {
                const g = document.querySelector('g.span[data-tid="%s"][data-first="%s"]');
                if (!g) return null;
                g.scrollIntoView({block: 'center', inline: 'nearest'});
                const r = g.querySelector('rect').getBoundingClientRect();
                return [r.left + r.width / 2, r.top + r.height / 2];
            })()""" % (tid, first))
            if where is None:
                raise Failure("--click: no span of thread %s with first position %s is drawn"
                              % (tid, first))
            dt.click(where[0], where[1])
            got = dt.wait_for("""(function () {
                const c = document.getElementById('details-cmd');
                if (!c) return null;
                const p = document.getElementById('details-cmd-part');
                const h = document.querySelector('#details h2');
                return {details: document.getElementById('details').innerText,
                        heading: h ? h.textContent : null,
                        cmd: c.textContent, part_cmd: p ? p.textContent : null,
                        selected: Array.from(document.querySelectorAll('g.span.selected'))
                                       .map(g => g.dataset.first)};
            })()""", "#details-cmd after the click")
            out["click"] = dict(got, at=where)
        if args.search is not None:
            dt.eval("document.getElementById('search').focus()")
            dt.send("Input.insertText", {"text": args.search})
            dt.key("Enter", "Enter", 13, "\r")
            got = dt.wait_for("""(function () {
                const n = document.getElementById('search-count').textContent;
                if (!n) return null;
                return {count: n,
                        matches: document.querySelectorAll('g.span.match').length,
                        dimmed: document.querySelectorAll('g.span.dim').length,
                        selected: Array.from(document.querySelectorAll('g.span.selected'))
                                       .map(g => g.dataset.name)};
            })()""", "the search count")
            time.sleep(0.6)     # Enter zooms with a transition
            got["after_enter"] = dt.eval("""({
                count: document.getElementById('search-count').textContent,
                details: document.getElementById('details').innerText,
                selected: Array.from(document.querySelectorAll('g.span.selected'))
                               .map(g => g.dataset.name)})""")
            out["search"] = got
        if args.wheel or args.drag:
            box = dt.eval("""(function () {
                window.scrollTo(0, 0);
                const r = document.getElementById('timeline').getBoundingClientRect();
                return [r.left + r.width / 2, r.top + Math.min(r.height, 200) / 2];
            })()""")
            if args.wheel:
                for _ in range(abs(args.wheel)):
                    dt.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": box[0], "y": box[1],
                                                         "deltaX": 0, "deltaY": -100 if args.wheel > 0 else 100})
                    time.sleep(0.05)
            if args.drag:
                dt.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})
                dt.send("Input.dispatchMouseEvent", {"type": "mousePressed", "x": box[0], "y": box[1],
                                                     "button": "left", "buttons": 1, "clickCount": 1})
                steps = 10
                for i in range(1, steps + 1):
                    dt.send("Input.dispatchMouseEvent", {
                        "type": "mouseMoved", "x": box[0] + args.drag * i / steps, "y": box[1],
                        "button": "left", "buttons": 1})
                    time.sleep(0.02)
                dt.send("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": box[0] + args.drag,
                                                     "y": box[1], "button": "left", "buttons": 0,
                                                     "clickCount": 1})
            time.sleep(0.3)
            out["view"] = dt.eval("""({
                range: document.getElementById('view-range').textContent,
                spans_attr: +document.body.dataset.spans,
                render_ms: +document.body.dataset.renderMs,
                spans: document.querySelectorAll('g.span').length,
                names: Array.from(new Set(Array.from(document.querySelectorAll('g.span'))
                                           .map(g => g.dataset.name))).slice(0, 50)})""")
        if args.final_screenshot:
            shot = dt.send("Page.captureScreenshot", {"format": "png"})
            with open(args.final_screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
    finally:
        dt.close()
    return out


# ---------------------------------------------------------------- main

def parse_click(s):
    try:
        tid, first = s.split(":")
        return int(tid), int(first)
    except ValueError:
        raise argparse.ArgumentTypeError("TID:FIRST wanted, got %r" % s)


def parse_window(s):
    try:
        w, h = s.replace("x", ",").split(",")
        return int(w), int(h)
    except ValueError:
        raise argparse.ArgumentTypeError("W,H wanted, got %r" % s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page")
    ap.add_argument("--pixel-check", action="store_true")
    ap.add_argument("--screenshot", metavar="PNG", help="keep the screenshot here")
    ap.add_argument("--no-screenshot", action="store_true", help="only the DOM")
    ap.add_argument("--click", type=parse_click, metavar="TID:FIRST")
    ap.add_argument("--search", metavar="TEXT")
    ap.add_argument("--wheel", type=int, default=0, metavar="N",
                    help="then N wheel notches over the plot's middle (N < 0: out)")
    ap.add_argument("--drag", type=int, default=0, metavar="DX", help="then drag the plot DX px")
    ap.add_argument("--final-screenshot", metavar="PNG",
                    help="a screenshot after --click/--search/--wheel/--drag")
    ap.add_argument("--window", type=parse_window, default=(1600, 1000), metavar="W,H")
    ap.add_argument("--budget", type=int, default=5000, help="virtual time budget, ms")
    ap.add_argument("--timeout", type=float, default=60.0, help="per chromium run, s")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", CHROMIUM))
    ap.add_argument("--log", help="chromium's messages (default: a temp file, removed on success)")
    args = ap.parse_args()

    if not os.path.isfile(args.page):
        print("page_check: no such page: %s" % args.page, file=sys.stderr)
        return 2
    if not os.access(args.chromium, os.X_OK):
        print("page_check: %s not found (apt-get install chromium)" % args.chromium, file=sys.stderr)
        return 2
    url = "file://" + os.path.abspath(args.page)
    log = args.log or tempfile.mkstemp(prefix="hindsight-page-check.", suffix=".log")[1]
    budget = "--virtual-time-budget=%d" % args.budget
    problems = []
    try:
        t0 = time.monotonic()
        dom = run_chromium(args.chromium, url, [budget, "--dump-dom"], args.window, args.timeout, log)
        dump_s = time.monotonic() - t0
        reader = DomReader()
        reader.feed(dom.decode("utf-8", "replace"))
        reader.close()
        b = reader.body
        result = {
            "ready": b.get("ready") == "1",
            "error": b.get("error"),
            "spans_attr": inum(b.get("spans")),
            "svg": {"left": fnum(b.get("svg-left")) or 0.0, "top": fnum(b.get("svg-top")) or 0.0},
            "background": b.get("background"),
            "ready_ms": inum(b.get("ready-ms")),
            "dump_seconds": round(dump_s, 3),
            "spans": [{k: v for k, v in s.items() if k != "classes"} for s in reader.spans],
            "tracks": reader.tracks,
            "markers": reader.markers,
            "screenshot": None,
        }
        if not result["ready"]:
            problems.append("the page did not become ready (data-ready=%r%s)"
                            % (b.get("ready"), ", error: " + b["error"] if b.get("error") else ""))
        if not args.no_screenshot or args.pixel_check:
            shot_dir = tempfile.mkdtemp(prefix="hindsight-page-check.")
            try:
                png = args.screenshot or os.path.join(shot_dir, "page.png")
                t0 = time.monotonic()
                run_chromium(args.chromium, url, [budget, "--screenshot=" + os.path.abspath(png)],
                             args.window, args.timeout, log)
                result["screenshot_seconds"] = round(time.monotonic() - t0, 3)
                if not os.path.isfile(png):
                    raise ChromiumError("chromium wrote no screenshot; its log: %s" % log)
                with open(png, "rb") as f:
                    img = decode_png(f.read())
                result["screenshot"] = {"width": img[0], "height": img[1], "colors": len(colours(img))}
                if args.pixel_check:
                    problems += pixel_check(result, img)
            finally:
                shutil.rmtree(shot_dir, ignore_errors=True)
        if args.click or args.search is not None or args.wheel or args.drag:
            result.update(interact(args, url, args.window, log))
    except ChromiumError as e:
        print("page_check: %s" % e, file=sys.stderr)
        return 2
    except Failure as e:
        problems.append(str(e))
        result = locals().get("result") or {}
    print(json.dumps(result, indent=1))
    for p in problems:
        print("page_check: %s" % p, file=sys.stderr)
    if not problems and not args.log:
        try:
            os.unlink(log)
        except OSError:
            pass
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
