// getExecutionLogs and downloadExecutionLogs over real HTTP: lines posted
// through the runner protocol come back as the spec's Log line objects, in
// (ts, task run, n) order, with nanosecond timestamps, paged by an opaque
// cursor, filtered by task and attempt; the download is the whole log as text
// with a file name; every route answers 404 execution_not_found for an
// unknown execution, and readers need the viewer role.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { claimRuns, completeRun, postLines, saveFlow, sleep, startLiveGateway, trigger, waitEnded, type ClaimedRun, type LiveGateway, type PostedLine } from './live-helpers.js';

let gw: LiveGateway;
let viewer: string;
let exId: string;
let build1: ClaimedRun;
let build2: ClaimedRun;
let check: ClaimedRun;
/** Every stored line, in the order the API must give them. */
let expected: { task_key: string; attempt: number; n: number; ts: string; text: string; stream: string }[];

const T0 = 1767225600_000000000n; // 2026-01-01T00:00:00Z in ns
const ts = (offsetNs: bigint) => String(T0 + offsetNs);
const iso = (offsetNs: bigint) => {
  const v = T0 + offsetNs;
  return `${new Date(Number(v / 1_000_000_000n) * 1000).toISOString().slice(0, 19)}.${String(v % 1_000_000_000n).padStart(9, '0')}Z`;
};

before(async () => {
  gw = await startLiveGateway();
  await makeUser(gw, 'viewer@example.com', 'viewer');
  viewer = await makeToken(gw, await login(gw, 'viewer@example.com'), 'viewer');
  await saveFlow(gw, 'logs', {
    id: 'pipeline',
    tasks: [
      { id: 'build', type: 'command', command: ['true'], retry: { max_attempts: 2, initial: '100ms' } },
      { id: 'check', type: 'command', command: ['true'] },
    ],
  });
  exId = await trigger(gw, 'logs', 'pipeline');
  const runs = await claimRuns(gw);
  build1 = runs.find((r) => r.taskKey === 'build')!;
  check = runs.find((r) => r.taskKey === 'check')!;
  // Interleaved stamps across two task runs, one tie (same ns in both runs), one line out of clock order within a run.
  await postLines(gw, build1, [
    { n: 1, ts: ts(1_000n), text: 'b1 compiling' },
    { n: 2, ts: ts(3_000n), text: 'b1 tie' },
    { n: 3, ts: ts(7_000n), stream: 'stderr', text: 'b1 failed' },
  ]);
  await postLines(gw, check, [
    { n: 1, ts: ts(2_000n), text: 'c1 start' },
    { n: 2, ts: ts(3_000n), text: 'c1 tie' },
    { n: 3, ts: ts(123_456_789n), text: 'c1 done ✓ "quoted"' },
  ]);
  // A retried batch is stored once.
  await postLines(gw, check, [{ n: 3, ts: ts(123_456_789n), text: 'c1 done ✓ "quoted"' }]);
  await completeRun(gw, check);
  await completeRun(gw, build1, { state: 'FAILED', exit_code: 1 });
  let second: ClaimedRun | undefined;
  for (let i = 0; !second && i < 100; i++) {
    await sleep(50);
    second = (await claimRuns(gw)).find((r) => r.taskKey === 'build');
  }
  build2 = second!;
  assert.equal(build2.attempt, 2);
  await postLines(gw, build2, [
    { n: 1, ts: ts(200_000_000n), text: 'b2 compiling' },
    { n: 2, ts: ts(200_000_001n), text: 'b2 ok' },
  ]);
  await completeRun(gw, build2);
  await waitEnded(gw, exId);

  const byRun = (r: ClaimedRun, x: (Omit<PostedLine, 'ts'> & { ts: bigint })[]) =>
    x.map((l) => ({ task_key: r.taskKey, attempt: r.attempt, n: l.n, ts: iso(l.ts), text: l.text, stream: l.stream ?? 'stdout', run: r.id, raw: l.ts }));
  const all = [
    ...byRun(build1, [
      { n: 1, ts: 1_000n, text: 'b1 compiling' },
      { n: 2, ts: 3_000n, text: 'b1 tie' },
      { n: 3, ts: 7_000n, text: 'b1 failed', stream: 'stderr' },
    ]),
    ...byRun(check, [
      { n: 1, ts: 2_000n, text: 'c1 start' },
      { n: 2, ts: 3_000n, text: 'c1 tie' },
      { n: 3, ts: 123_456_789n, text: 'c1 done ✓ "quoted"' },
    ]),
    ...byRun(build2, [
      { n: 1, ts: 200_000_000n, text: 'b2 compiling' },
      { n: 2, ts: 200_000_001n, text: 'b2 ok' },
    ]),
  ];
  all.sort((a, b) => (a.raw !== b.raw ? (a.raw < b.raw ? -1 : 1) : a.run !== b.run ? (a.run < b.run ? -1 : 1) : a.n - b.n));
  expected = all.map(({ run: _r, raw: _x, ...rest }) => rest);
});
after(() => gw.close());

const strip = (items: any[]) => items.map((l) => ({ task_key: l.task_key, attempt: l.attempt, n: l.n, ts: l.ts, text: l.text, stream: l.stream }));

test('a page holds Log line objects in (ts, task run, n) order with nanosecond RFC 3339 stamps', async () => {
  const r = await gw.api('GET', `/api/v1/executions/${exId}/logs`, undefined, { authorization: `Bearer ${viewer}` });
  assert.equal(r.status, 200);
  assert.equal(r.body.next_cursor, undefined);
  assert.deepEqual(strip(r.body.items), expected);
  const first = r.body.items[0];
  assert.deepEqual(Object.keys(first).sort(), ['attempt', 'n', 'stream', 'task_key', 'task_run_id', 'text', 'ts']);
  assert.equal(first.task_run_id, build1.id);
  assert.equal(first.ts, '2026-01-01T00:00:00.000001000Z');
  assert.ok(r.body.items.some((l: any) => l.ts === '2026-01-01T00:00:00.123456789Z'));
});

test('cursor paging walks every line once, in order', async () => {
  const got: any[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const r = await gw.api('GET', `/api/v1/executions/${exId}/logs?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.status, 200);
    assert.ok(r.body.items.length <= 3);
    got.push(...r.body.items);
    cursor = r.body.next_cursor;
    pages++;
  } while (cursor);
  assert.equal(pages, 3);
  assert.deepEqual(strip(got), expected);
});

test('task and attempt filters select lines', async () => {
  const build = await gw.api('GET', `/api/v1/executions/${exId}/logs?task=build`);
  assert.deepEqual(
    strip(build.body.items),
    expected.filter((l) => l.task_key === 'build'),
  );
  const second = await gw.api('GET', `/api/v1/executions/${exId}/logs?task=build&attempt=2`);
  assert.deepEqual(
    second.body.items.map((l: any) => l.text),
    ['b2 compiling', 'b2 ok'],
  );
  const firstAttempts = await gw.api('GET', `/api/v1/executions/${exId}/logs?attempt=1&limit=2`);
  assert.deepEqual(
    firstAttempts.body.items.map((l: any) => l.text),
    ['b1 compiling', 'c1 start'],
  );
  assert.ok(firstAttempts.body.next_cursor);
  const none = await gw.api('GET', `/api/v1/executions/${exId}/logs?task=nope`);
  assert.deepEqual(none.body, { items: [] });
});

test('limit is 1 to 5000 (default 1000); bad limit, attempt and cursor are 422 on their own field', async () => {
  for (const [q, field] of [
    ['limit=5001', 'limit'],
    ['limit=0', 'limit'],
    ['limit=x', 'limit'],
    ['attempt=0', 'attempt'],
    ['attempt=x', 'attempt'],
    ['cursor=%%%', 'cursor'],
    ['cursor=' + Buffer.from('{"a":1}').toString('base64url'), 'cursor'],
  ] as const) {
    const r = await gw.api('GET', `/api/v1/executions/${exId}/logs?${q}`);
    assert.equal(r.status, 422, q);
    assert.equal(r.body.error.code, 'validation_failed', q);
    assert.deepEqual(
      r.body.error.details.map((d: any) => d.field),
      [field],
      q,
    );
  }
  assert.equal((await gw.api('GET', `/api/v1/executions/${exId}/logs?limit=5000`)).status, 200);
  assert.equal((await gw.api('GET', `/api/v1/executions/${exId}/logs?limit=1`)).body.items.length, 1);
});

test('the download is every line as text, in order, with a file name naming namespace, flow and execution', async () => {
  const r = await fetch(`${gw.url}/api/v1/executions/${exId}/logs/download`, { headers: { authorization: `Bearer ${viewer}` } });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(r.headers.get('content-disposition'), `attachment; filename="logs-pipeline-${exId}.log"`);
  const text = await r.text();
  assert.equal(text, expected.map((l) => `${l.ts} [${l.task_key}#${l.attempt} ${l.stream}] ${l.text}\n`).join(''));
  assert.ok(text.startsWith('2026-01-01T00:00:00.000001000Z [build#1 stdout] b1 compiling\n'));
  const only = await (await fetch(`${gw.url}/api/v1/executions/${exId}/logs/download?task=check`, { headers: { authorization: `Bearer ${viewer}` } })).text();
  assert.equal(only.split('\n').filter(Boolean).length, 3);
  assert.ok(
    only
      .split('\n')
      .filter(Boolean)
      .every((l) => l.includes('[check#1 stdout]')),
  );
});

test('a download larger than one database batch is complete and in order', async () => {
  const ex = await trigger(gw, 'logs', 'pipeline');
  const runs = await claimRuns(gw);
  const run = runs.find((r) => r.taskKey === 'check')!;
  const N = 12_345;
  for (let start = 1; start <= N; start += 5000) {
    const batch = [];
    for (let n = start; n < Math.min(start + 5000, N + 1); n++) batch.push({ n, ts: ts(BigInt(n) * 1000n), text: `line ${n}` });
    await postLines(gw, run, batch);
  }
  const text = await (await fetch(`${gw.url}/api/v1/executions/${ex}/logs/download`, { headers: { authorization: `Bearer ${gw.token}` } })).text();
  const lines = text.split('\n').filter(Boolean);
  assert.equal(lines.length, N);
  lines.forEach((l, i) => assert.ok(l.endsWith(`] line ${i + 1}`), l));
  // And paged reads agree with it at the largest page size.
  const p1 = await gw.api('GET', `/api/v1/executions/${ex}/logs?limit=5000`);
  const p2 = await gw.api('GET', `/api/v1/executions/${ex}/logs?limit=5000&cursor=${p1.body.next_cursor}`);
  const p3 = await gw.api('GET', `/api/v1/executions/${ex}/logs?limit=5000&cursor=${p2.body.next_cursor}`);
  assert.deepEqual([p1.body.items.length, p2.body.items.length, p3.body.items.length, p3.body.next_cursor], [5000, 5000, 2345, undefined]);
  assert.equal(p2.body.items[0].text, 'line 5001');
});

test('every log, stream, artifact and metric route answers 404 execution_not_found for an unknown execution', async () => {
  const id = '01jzzzzzzzzzzzzzzzzzzzzzzz';
  for (const p of ['logs', 'logs/download', 'logs/stream', 'events', 'artifacts', 'artifacts/01jaaaaaaaaaaaaaaaaaaaaaaa', 'metrics']) {
    const r = await gw.api('GET', `/api/v1/executions/${id}/${p}`);
    assert.equal(r.status, 404, p);
    assert.equal(r.body.error.code, 'execution_not_found', p);
    assert.match(r.headers.get('content-type') ?? '', /application\/json/, p);
  }
});

test('the routes need a credential', async () => {
  for (const p of ['logs', 'logs/download', 'logs/stream', 'events', 'artifacts', 'metrics']) {
    const r = await fetch(`${gw.url}/api/v1/executions/${exId}/${p}`);
    assert.equal(r.status, 401, p);
    await r.body?.cancel();
  }
});
