// The baseline of bench/engine.bench.mjs: a graphile-worker process (see
// graphile-worker-child.mjs) on its own database, and the WorkerUtils this
// process adds jobs with.
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeWorkerUtils, Logger } from 'graphile-worker';

const here = path.dirname(fileURLToPath(import.meta.url));
const quiet = new Logger(() => (level, message) => {
  if (level === 'error') process.stderr.write(`graphile-worker ${level}: ${message}\n`);
});

/**
 * Starts the baseline worker.
 * @param {{ url: string, concurrency: number }} o `url` of the baseline's database; `concurrency` jobs at a time.
 */
export async function startBaseline(o) {
  const utils = await makeWorkerUtils({ connectionString: o.url, logger: quiet });
  await utils.migrate();
  const child = fork(path.join(here, 'graphile-worker-child.mjs'), [o.url, String(o.concurrency)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise((r) => child.once('exit', r));
  const pending = new Map();
  child.on('message', (m) => {
    if (m.type === 'done') {
      pending.get(m.tag)?.(m.times);
      pending.delete(m.tag);
    }
  });
  await new Promise((resolve, reject) => {
    child.once('message', (m) => (m.type === 'ready' ? resolve() : reject(new Error(`baseline worker: ${JSON.stringify(m)}`))));
    child.once('exit', (c) => reject(new Error(`baseline worker exited with ${c} before it was ready`)));
  });
  return {
    pid: child.pid,
    addJob: (task, payload) => utils.addJob(task, payload),
    addJobs: (specs) => utils.addJobs(specs),
    /** Resolves with the completion times of the first `count` jobs tagged `tag` (ms, wall clock). */
    waitFor(tag, count, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`baseline: ${tag} did not complete ${count} jobs in ${timeoutMs} ms`)), timeoutMs);
        pending.set(tag, (times) => {
          clearTimeout(t);
          resolve(times);
        });
        child.send({ type: 'wait', tag, count });
      });
    },
    async stop() {
      if (child.connected) child.send({ type: 'stop' });
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
      await utils.release();
    },
  };
}
