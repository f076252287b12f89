// Benchmark: what the audit event of a manual start (execution.trigger,
// docs/using/api.md) costs the trigger path. The engine's triggerFlow from
// its flow cache (one statement), in this process on a real PostgreSQL, no
// HTTP: interleaved rounds of
//   none        no audit event (schedules, webhooks, flow triggers);
//   same        the event in the start statement (what triggerFlow and
//               runFile do);
//   separate    the rejected alternative: the start, then recordAudit's
//               insert (a second round trip).
// Latency of each call (p50, p95, p99 in ms) and statements per trigger.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const db = await import(path.join(root, 'packages/db/dist/index.js'));
const identity = await import(path.join(root, 'packages/identity/dist/index.js'));
const namespaces = await import(path.join(root, 'packages/namespaces/dist/index.js'));
const storageLib = await import(path.join(root, 'packages/storage/dist/index.js'));
const engine = await import(path.join(root, 'packages/engine/dist/internal.js'));

const ROUNDS = Number(process.env.BENCH_TRIGGER_AUDIT_ROUNDS ?? 500);
const pct = (xs, p) => +[...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))].toFixed(3);
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-trigger-audit-'));
  // PostgreSQL runs as another user when the benchmark runs as root: it must reach its directory.
  fs.chmodSync(dir, 0o755);
  const pg = await db.startPostgresKeeper(path.join(dir, 'pg'), { database: 'svc', ephemeral: true, stdio: 'ignore' });
  const conn = db.createDb({ url: pg.url, poolSize: 4 });
  try {
    await db.applyMigrations(conn.pool);
    const storage = await storageLib.createObjectStore(`file://${path.join(dir, 'objects')}`);
    await namespaces.createNamespace(conn.pool, { name: 'bench', createdBy: 'bench', now: new Date() });
    const flow = { id: 'one', tasks: [{ id: 't', type: 'command', command: ['true'] }] };
    await namespaces.saveChanges(
      { pool: conn.pool, storage, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 },
      { namespace: 'bench', message: 'bench', author: 'bench', changes: [{ op: 'put', path: 'one.flow.yaml', content: JSON.stringify(flow) }] },
    );
    let statements = 0;
    const pool = conn.pool;
    const query = pool.query.bind(pool);
    pool.query = (...a) => {
      statements++;
      return query(...a);
    };
    const deps = { config: { defaultExecutor: 'process', now: () => new Date() }, storage, snapshots: new engine.SnapshotFacts(), flows: new engine.FlowCache() };
    const request = { namespace: 'bench', flowId: 'one', triggerType: 'manual', createdBy: 'bench@example.com' };
    const details = { namespace: 'bench', flow_id: 'one', trigger_type: 'manual', input_keys: ['a', 'b'] };
    const actor = { id: 'user-1', type: 'token' };
    const variants = {
      none: () => engine.triggerFlow(pool, deps, request),
      same: () =>
        engine.triggerFlow(pool, deps, {
          ...request,
          audit: { id: db.newId(), action: 'execution.trigger', actorId: actor.id, actorType: actor.type, ip: '127.0.0.1', requestId: 'r', details },
        }),
      separate: async () => {
        const created = await engine.triggerFlow(pool, deps, request);
        await identity.recordAudit(pool, {
          action: 'execution.trigger',
          actor,
          targetType: 'execution',
          targetId: created.id,
          ip: '127.0.0.1',
          requestId: 'r',
          details,
          at: new Date(),
        });
        return created;
      },
    };
    // Warm up: the flow cache, the prepared statements, Prisma's client.
    for (let i = 0; i < 30; i++) for (const fn of Object.values(variants)) await fn();
    const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    const counts = Object.fromEntries(Object.keys(variants).map((k) => [k, 0]));
    for (let i = 0; i < ROUNDS; i++) {
      for (const [k, fn] of Object.entries(variants)) {
        statements = 0;
        const t = process.hrtime.bigint();
        await fn();
        times[k].push(ms(t));
        counts[k] += statements;
      }
    }
    const out = {};
    for (const k of Object.keys(variants)) {
      out[k] = { p50_ms: pct(times[k], 50), p95_ms: pct(times[k], 95), p99_ms: pct(times[k], 99), statements_per_trigger: +(counts[k] / ROUNDS).toFixed(2) };
    }
    return { rounds: ROUNDS, ...out };
  } finally {
    await conn.close();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
