// A small Node process that spawns `true` the way svc's runner does, on
// request, so a scenario can measure the pure spawn cost of its own number of
// tasks and slots at the same moment it measures svc and the baseline.
// IPC: {count, concurrency} -> {wall_ms}.
import { spawn } from 'node:child_process';

const spawnTrue = () =>
  new Promise((resolve, reject) => {
    const child = spawn('true', [], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    child.once('error', reject);
    child.once('close', resolve);
  });

process.on('message', async ({ count, concurrency }) => {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        await spawnTrue();
      }
    }),
  );
  process.send({ wall_ms: performance.now() - t0 });
});
process.send({ ready: true });
