import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EXECUTION_STATES, TASK_RUN_STATES } from '../src/metrics.js';
import { startTestGateway, type TestGateway } from './helpers.js';

let gw: TestGateway;

before(async () => {
  gw = await startTestGateway();
});
after(() => gw.close());

async function scrape(): Promise<string> {
  const r = await fetch(`${gw.url}/metrics`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  return r.text();
}

function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('on an empty database every state is reported as 0 and the queue depth is pool default 0', async () => {
  const text = await scrape();
  assert.match(text, /^# TYPE svc_executions gauge$/m);
  assert.match(text, /^# TYPE svc_task_runs gauge$/m);
  assert.match(text, /^# TYPE svc_queue_depth gauge$/m);
  assert.match(text, /^# TYPE svc_http_request_duration_seconds histogram$/m);
  for (const s of EXECUTION_STATES) assert.equal(sample(text, 'svc_executions', `state="${s}"`), 0, s);
  for (const s of TASK_RUN_STATES) assert.equal(sample(text, 'svc_task_runs', `state="${s}"`), 0, s);
  assert.equal(text.split('\n').filter((l) => l.startsWith('svc_queue_depth{')).length, 1);
  assert.equal(sample(text, 'svc_queue_depth', 'pool="default"'), 0);
  assert.match(text, /^process_resident_memory_bytes /m, 'the default runtime collectors are served');
  // The build this gateway runs (SVC_BUILD_VERSION, else the repository's version).
  assert.match(text, new RegExp(`^svc_build_info\\{app="api-gateway",version="[^"]+",node="${process.version.replace(/\./g, '\\.')}"\\} 1$`, 'm'));
});

test('gauges count database rows at each scrape', async () => {
  await gw.db.pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('snap', 'team', 'h', 0, 0)`);
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, snapshot_id, definition, created_by, trigger_type)
     VALUES ('e1', 'RUNNING', 'team', 'snap', '{}', 'test', 'manual'), ('e2', 'RUNNING', 'team', 'snap', '{}', 'test', 'manual'),
            ('e3', 'FAILED', 'team', 'snap', '{}', 'test', 'manual')`,
  );
  await gw.db.pool.query(
    `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, attempt) VALUES
     ('t1', 'e1', 'a', 'script', 'process', 'default', 'QUEUED', 1),
     ('t2', 'e1', 'b', 'script', 'process', 'gpu', 'QUEUED', 1),
     ('t3', 'e2', 'a', 'script', 'process', 'gpu', 'QUEUED', 1),
     ('t4', 'e2', 'b', 'script', 'process', 'gpu', 'RUNNING', 1)`,
  );
  const text = await scrape();
  assert.equal(sample(text, 'svc_executions', 'state="RUNNING"'), 2);
  assert.equal(sample(text, 'svc_executions', 'state="FAILED"'), 1);
  assert.equal(sample(text, 'svc_executions', 'state="QUEUED"'), 0);
  assert.equal(sample(text, 'svc_task_runs', 'state="QUEUED"'), 3);
  assert.equal(sample(text, 'svc_task_runs', 'state="RUNNING"'), 1);
  assert.equal(sample(text, 'svc_queue_depth', 'pool="default"'), 1);
  assert.equal(sample(text, 'svc_queue_depth', 'pool="gpu"'), 2);
});

test('a gauge whose query fails has no series while the others still report', async () => {
  await gw.db.pool.query(`ALTER TABLE executions RENAME TO executions_away`);
  try {
    const text = await scrape();
    assert.doesNotMatch(text, /^svc_executions\{/m);
    assert.equal(sample(text, 'svc_task_runs', 'state="RUNNING"'), 1);
  } finally {
    await gw.db.pool.query(`ALTER TABLE executions_away RENAME TO executions`);
  }
});

test('the request histogram labels routes by pattern: operation, /api/*, /*, unmatched', async () => {
  // Each body is read to its end: a request is observed when its response
  // finishes, which for a compressed page can come after the client has the headers.
  const get = async (p: string) => (await fetch(`${gw.url}${p}`)).text();
  await get('/api/v1/executions/01abc'); // an operation (no credential: 401)
  await get('/api/v1/executions/01def');
  await get('/api/v1/no-such-thing');
  await get('/');
  await get('/favicon-nope.txt');
  await get('/api/v1/schemas/flow.json');
  const text = await scrape();
  const count = (labels: string) => sample(text, 'svc_http_request_duration_seconds_count', labels);
  assert.equal(count('method="GET",route="/api/v1/executions/{executionId}",status="401"'), 2);
  assert.equal(count('method="GET",route="/api/*",status="404"'), 1);
  assert.equal(count('method="GET",route="/*",status="200"'), 1);
  assert.equal(count('method="GET",route="unmatched",status="404"'), 1);
  assert.equal(count('method="GET",route="/api/v1/schemas/flow.json",status="200"'), 1);
  assert.doesNotMatch(text, /01abc|01def/, 'raw ids never become labels');
  assert.match(text, /svc_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/\*",status="200"\}/);
  assert.match(text, /svc_http_request_duration_seconds_bucket\{le="10",/);
});

test('scrapes read through a connection of their own: with every API connection taken they still answer, and concurrent scrapes share one read', async () => {
  // The test gateway's API pool has 4 connections: hold them all, as a burst of requests would.
  const held = await Promise.all(Array.from({ length: 4 }, () => gw.db.pool.connect()));
  try {
    const texts = await Promise.all(Array.from({ length: 20 }, () => scrape()));
    for (const text of texts) {
      assert.equal(sample(text, 'svc_executions', 'state="QUEUED"') !== undefined, true, 'the gauges have their series');
      assert.ok(sample(text, 'svc_queue_depth', 'pool="default"') !== undefined || /svc_queue_depth\{pool=/.test(text));
    }
  } finally {
    for (const c of held) c.release();
  }
  // The gateway counts its gauge reads: twenty scrapes at once (three gauges each) were not sixty reads.
  const before = gw.gateway!.metrics.gaugeReads();
  await Promise.all(Array.from({ length: 20 }, () => scrape()));
  const after = gw.gateway!.metrics.gaugeReads();
  assert.ok(after - before <= 3, `${after - before} reads for 20 concurrent scrapes`);
});
