// Loaded into every process of an `npm test` run (scripts/test.mjs passes it
// with --import, and node:test hands its flags to each test file's process):
// a test file's process appends its wall time, from its start to its exit, to
// SVC_TEST_TIMINGS, which the run reads to list its slowest files.
import fs from 'node:fs';

const out = process.env.SVC_TEST_TIMINGS;
const file = process.argv[1];
if (out && file && /\.test\.(ts|mjs)$/.test(file)) {
  process.on('exit', () => {
    fs.appendFileSync(out, `${JSON.stringify({ file, ms: Math.round(performance.now()) })}\n`);
  });
}
