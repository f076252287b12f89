// A node:test reporter that writes the run's totals as JSON (one object) to
// its destination; scripts/test.mjs turns it into the closing line
// "N passed, N failed" that CI reads.
export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    if (d.details?.type === 'suite') continue;
    if (event.type === 'test:pass') {
      if (d.skip || d.todo) skipped++;
      else passed++;
    } else {
      failed++;
      failures.push({ name: d.name, file: d.file ?? null });
    }
  }
  yield JSON.stringify({ passed, failed, skipped, failures }) + '\n';
}
