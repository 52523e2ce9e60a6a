// Self-test of check.js: it must accept a well-formed trace and reject each
// broken variant of it. Run after `npm ci`: node --test selftest.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {spawnSync} = require('node:child_process');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trace-check-selftest.'));
test.after(() => fs.rmSync(dir, {recursive: true, force: true}));

// pid 100: thread 100 "main" runs main > f > g, then main > h with an instant
// inside h; thread 101 "worker" runs worker_fn. ts and dur in microseconds.
function good() {
  return {
    traceEvents: [
      {ph: 'M', pid: 100, tid: 100, name: 'process_name', args: {name: 'prog'}},
      {ph: 'M', pid: 100, tid: 100, name: 'thread_name', args: {name: 'main'}},
      {ph: 'M', pid: 100, tid: 101, name: 'thread_name', args: {name: 'worker'}},
      {ph: 'X', pid: 100, tid: 100, ts: 1, dur: 10, name: 'main', cat: 'call', args: {}},
      {ph: 'X', pid: 100, tid: 100, ts: 2, dur: 3, name: 'f', cat: 'call', args: {x: 1}},
      {ph: 'X', pid: 100, tid: 100, ts: 2.5, dur: 1, name: 'g', cat: 'call', args: {}},
      {ph: 'X', pid: 100, tid: 100, ts: 6, dur: 2, name: 'h', cat: 'call', args: {}},
      {ph: 'X', pid: 100, tid: 101, ts: 3, dur: 4, name: 'worker_fn', cat: 'call', args: {}},
      {ph: 'i', s: 't', pid: 100, tid: 100, ts: 7, name: 'signal', cat: 'event', args: {}},
    ],
    displayTimeUnit: 'ns',
    otherData: {recording: 'selftest'},
  };
}
const F = 4, G = 5;  // indexes of f and g in traceEvents

function run(name, content, ...args) {
  const file = path.join(dir, name + '.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  const r = spawnSync(process.execPath, [path.join(__dirname, 'check.js'), ...args, file],
                      {encoding: 'utf8', timeout: 120000});
  return {status: r.status, stdout: r.stdout, stderr: r.stderr};
}

function rejects(name, mutate, message) {
  test(`rejects: ${name}`, () => {
    const t = good();
    const content = mutate(t) ?? t;
    const r = run(name.replace(/\W+/g, '_'), content);
    assert.strictEqual(r.status, 1, `exit status ${r.status}\n${r.stderr}`);
    assert.match(r.stderr, message);
  });
}

test('accepts the good trace and reports what Perfetto imported', () => {
  const r = run('good', good(), '--sql',
                'select s.name, p.name as parent from slice s ' +
                'join slice p on s.parent_id = p.id order by s.ts');
  assert.strictEqual(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.strictEqual(s.ok, true);
  assert.strictEqual(s.slices, 6);
  assert.strictEqual(s.max_depth, 2);
  assert.deepStrictEqual(s.processes, [{pid: 100, name: 'prog'}]);
  assert.deepStrictEqual(
      s.threads.map((t) => [t.tid, t.name, t.slices, t.max_depth]),
      [[100, 'main', 5, 2], [101, 'worker', 1, 0]]);
  assert.deepStrictEqual(s.queries[0].rows, [
    {name: 'f', parent: 'main'}, {name: 'g', parent: 'f'},
    {name: 'h', parent: 'main'}, {name: 'signal', parent: 'h'},
  ]);
});

test('accepts the good trace with its events in reverse order', () => {
  const t = good();
  t.traceEvents.reverse();
  assert.strictEqual(run('reversed', t).status, 0);
});

rejects('X event without dur', (t) => { delete t.traceEvents[F].dur; },
        /json_parser_failure/);
rejects('child X event ends after its parent', (t) => { t.traceEvents[G].dur = 5; },
        /slice_drop_overlapping_complete_event/);
rejects('child X event starts before its parent', (t) => { t.traceEvents[G].ts = 1.5; },
        /slice_drop_overlapping_complete_event/);
rejects('non-numeric ts', (t) => { t.traceEvents[F].ts = 'abc'; },
        /json_tokenizer_failure/);
rejects('null ts', (t) => { t.traceEvents[F].ts = null; }, /json_tokenizer_failure/);
rejects('negative dur', (t) => { t.traceEvents[F].dur = -1; },
        /slice_negative_duration/);
rejects('unknown phase', (t) => { t.traceEvents[F].ph = 'Q'; }, /phase "Q"/);
rejects('truncated JSON', (t) => JSON.stringify(t).slice(0, -1), /not valid JSON/);
rejects('JSON cut in the middle', (t) => JSON.stringify(t).slice(0, 500),
        /not valid JSON/);
rejects('empty file', () => '', /is empty/);
rejects('no traceEvents', () => ({events: []}), /traceEvents/);
