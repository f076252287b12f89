// A node:test reporter that writes the run's totals as JSON (one object) to
// its destination; scripts/test.mjs turns it into the closing line
// "N passed, N failed" that CI reads, after the slowest test files (the time
// from a file's first report to its last, as this run saw it).
export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  /** file -> [first seen, last seen] (ms). */
  const spans = new Map();
  for await (const event of source) {
    const d = event.data;
    // Every file's tests are enqueued when the run starts: a file's span begins when one of them runs.
    if (d?.file && event.type !== 'test:enqueue') {
      const now = Date.now();
      const span = spans.get(d.file);
      if (span) span[1] = now;
      else spans.set(d.file, [now, now]);
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (d.details?.type === 'suite') continue;
    if (event.type === 'test:pass') {
      if (d.skip || d.todo) skipped++;
      else passed++;
    } else {
      failed++;
      failures.push({ name: d.name, file: d.file ?? null });
    }
  }
  const slowest = [...spans]
    .map(([file, [a, b]]) => ({ file, seconds: Math.round((b - a) / 100) / 10 }))
    .sort((x, y) => y.seconds - x.seconds)
    .slice(0, 25);
  yield JSON.stringify({ passed, failed, skipped, failures, slowest }) + '\n';
}
