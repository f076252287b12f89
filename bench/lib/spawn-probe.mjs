// Parent side of spawn-probe-child.mjs.
import { fork } from 'node:child_process';
import path from 'node:path';

export async function startSpawnProbe() {
  const child = fork(path.join(import.meta.dirname, 'spawn-probe-child.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve) => child.once('message', resolve));
  return {
    pid: child.pid,
    /** Wall ms to spawn `count` `true`, `concurrency` at a time, from a small Node process. */
    measure: (count, concurrency) =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m.wall_ms));
        child.send({ count, concurrency });
      }),
    stop() {
      child.kill('SIGTERM');
      return new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}
