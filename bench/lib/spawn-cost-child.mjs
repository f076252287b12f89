// Measures what starting a task's process costs from a Node process of a
// given size: `true` (what svc's in-process runner pays per task) against a
// fresh Node runtime (`node -e 0`, and a Node that loads svc's runner), the
// price of running the runner as a process of its own per task.
//
// argv: <resident MiB to grow to> <runner module path>. Sends one result
// object over IPC.
import { spawn } from 'node:child_process';
import { rssMiB } from './rss.mjs';

const [targetMiB, runnerModule] = process.argv.slice(2);
// Grown with small JS objects on the V8 heap, like a service's memory, so the
// page tables fork copies match a Node process of that resident size. (1 MiB
// Buffers instead, each a mapping of its own, made each spawn 3 times dearer
// at the same size: 5.8 ms against 1.7 ms at about 160 MiB. The dispatcher's
// own CPU profile puts its spawn() calls at about 2.5 ms each.)
const ballast = [];
while (Math.round(rssMiB()) < Number(targetMiB)) for (let i = 0; i < 20_000; i++) ballast.push({ a: i, b: `x${i}`, c: [i, i + 1] });

const wall = () => performance.now();
const spawnLikeRunner = (file, args) =>
  new Promise((resolve, reject) => {
    const child = spawn(file, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} ${args.join(' ')} exited with ${code}`))));
  });

/** `count` runs of `file args`, `concurrency` at a time: wall ms, and per-run ms (p50). */
async function measure(file, args, count, concurrency) {
  const each = [];
  let next = 0;
  const t0 = wall();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const t = wall();
        await spawnLikeRunner(file, args);
        each.push(wall() - t);
      }
    }),
  );
  const total = wall() - t0;
  each.sort((a, b) => a - b);
  return { count, concurrency, wall_ms: +total.toFixed(1), per_run_p50_ms: +each[Math.floor(each.length / 2)].toFixed(2), per_task_wall_ms: +(total / count).toFixed(2) };
}

await measure('true', [], 20, 1); // warm-up
const result = {
  rss_mib: Math.round(rssMiB()),
  true_sequential: await measure('true', [], 200, 1),
  true_8_slots: await measure('true', [], 200, 8),
  node_e0_sequential: await measure(process.execPath, ['-e', '0'], 50, 1),
  node_e0_8_slots: await measure(process.execPath, ['-e', '0'], 200, 8),
  node_load_runner_sequential: await measure(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(runnerModule)})`], 30, 1),
};
void ballast.length;
process.send(result, () => process.exit(0));
