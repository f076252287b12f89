import { test } from 'node:test';
import { claimRuns, saveFlow, startLiveGateway } from './live-helpers.js';
import { logPage } from '../src/live/sql.js';
import { toLogLine } from '../src/live/lines.js';

test('scratch: page timing', async () => {
  const gw = await startLiveGateway();
  await saveFlow(gw, 'b', { id: 'ten', tasks: Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, type: 'command', command: ['true'] })) });
  const ex = (await gw.api('POST', '/api/v1/flows/b/ten/executions', {})).body.id;
  const runs = await claimRuns(gw);
  for (const [k, r] of runs.entries()) {
    await gw.db.pool.query(`INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text)
       SELECT $1, g, $2, $3, 1, 1767225600000000000 + g::bigint * 1000000 + $4, 'stdout', lpad(g::text, 8, '0') || ' ' || repeat('x', 90)
       FROM generate_series(1, 100000) AS g`, [r.id, ex, r.taskKey, k]);
  }
  await gw.db.pool.query('ANALYZE log_lines');
  for (let round = 0; round < 3; round++) {
    let t = performance.now();
    const rows = await logPage(gw.db.pool, { executionId: ex, limit: 5001 });
    const tq = performance.now() - t; t = performance.now();
    const items = rows.map(toLogLine);
    const tm = performance.now() - t; t = performance.now();
    const s = JSON.stringify({ items });
    const tj = performance.now() - t; t = performance.now();
    const r = await fetch(`${gw.url}/api/v1/executions/${ex}/logs?limit=5000`, { headers: { authorization: `Bearer ${gw.token}` } });
    const body = await r.text();
    const th = performance.now() - t; t = performance.now();
    JSON.parse(body);
    const tp = performance.now() - t;
    console.log({ tq, tm, tj, th, tp, bytes: s.length });
  }
  const ex2 = await gw.db.pool.query(`EXPLAIN ANALYZE SELECT l.task_run_id, l.n, l.task_key, l.attempt, l.ts::text AS ts, l.stream, l.text FROM log_lines l WHERE l.execution_id = $1 ORDER BY l.ts, l.task_run_id, l.n LIMIT 5001`, [ex]);
  console.log(ex2.rows.map((x) => x['QUERY PLAN']).join('\n'));
  await gw.close();
});
