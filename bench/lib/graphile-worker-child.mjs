// The baseline's worker process for bench/engine.bench.mjs: graphile-worker
// (npm) on its own database of the same PostgreSQL cluster, with job
// handlers that spawn the same commands the svc flows run, the way svc's
// runner does (own process group, stdout and stderr piped and drained). It
// runs in a process of its own, like svc's dispatcher, so the benchmark's
// client work does not share its event loop.
//
// argv: <connection string> <concurrency>. IPC from the parent:
//   {type: 'wait', tag, count}  replies {type: 'done', tag, times} once `count`
//                               jobs whose payload has this `tag` completed;
//                               `times` are their completion wall times (ms,
//                               sub-ms precision, job:complete event).
//   {type: 'stop'}              stops the worker and exits.
// Sends {type: 'ready'} once the worker runs.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Logger, run } from 'graphile-worker';

const [connectionString, concurrency] = process.argv.slice(2);
const wallMs = () => performance.timeOrigin + performance.now();

/** Spawns `file args` as svc's runner does and resolves with its exit code. */
function spawnLikeRunner(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(code) : reject(new Error(`${file} exited with ${code}`))));
  });
}

const completed = new Map(); // tag -> completion times
const waiters = new Map(); // tag -> {count, resolve}
function check(tag) {
  const w = waiters.get(tag);
  const times = completed.get(tag) ?? [];
  if (w && times.length >= w.count) {
    waiters.delete(tag);
    completed.delete(tag);
    process.send({ type: 'done', tag, times });
  }
}

const events = new EventEmitter();
events.on('job:complete', ({ job, error }) => {
  if (error) process.stderr.write(`baseline job ${job.id} failed: ${error}\n`);
  const tag = job.payload?.tag;
  if (!tag) return;
  if (!completed.has(tag)) completed.set(tag, []);
  completed.get(tag).push(wallMs());
  check(tag);
});

const taskList = {
  // The latency probe: records its own start, like the svc flow's task.
  stamp: async (p) => void (await spawnLikeRunner('sh', ['-c', `date +%s%N > ${p.file}`])),
  noop: async () => void (await spawnLikeRunner('true', [])),
  // One link of a chain: runs `true`, then queues the next link.
  chain: async (p, helpers) => {
    await spawnLikeRunner('true', []);
    if (p.i + 1 < p.n) await helpers.addJob('chain', { ...p, i: p.i + 1 });
  },
};

// Errors and warnings only: svc runs at SVC_LOG_LEVEL=warn too.
const logger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') process.stderr.write(`graphile-worker ${level}: ${message}\n`);
});

const runner = await run({ connectionString, concurrency: Number(concurrency), noHandleSignals: true, taskList, logger, events });
process.on('message', async (m) => {
  if (m.type === 'wait') {
    waiters.set(m.tag, { count: m.count });
    check(m.tag);
  } else if (m.type === 'stop') {
    await runner.stop();
    process.exit(0);
  }
});
process.send({ type: 'ready' });
