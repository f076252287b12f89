// Benchmark: template parsing, the step every flow validation and every task
// dispatch repeats for each template. Two figures, after warm-up, in one
// process: one long template (20,000 expressions, 740 KB) must parse in linear
// time, so 4x the length takes about 4x as long (targets: the ratio under 8,
// where a quadratic parser would show 16, and the long one under 1 s); and
// 1,000 typical templates (an input and an upstream output each) under 50 ms,
// that is 50 µs apiece.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { parseTemplate } = await import(path.join(root, 'packages/flow-schema/dist/templates/index.js'));

const best = (fn, runs) => {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    fn();
    min = Math.min(min, Number(process.hrtime.bigint() - t) / 1e6);
  }
  return min;
};

export async function run() {
  const unit = 'x {{ tasks.a.outputs.rows[0]["k"] }} ';
  const small = unit.repeat(5_000);
  const long = unit.repeat(20_000);
  if (parseTemplate(long).expressions.length !== 20_000) throw new Error('the long template did not parse');
  const smallMs = best(() => parseTemplate(small), 5);
  const longMs = best(() => parseTemplate(long), 5);
  const typical = Array.from({ length: 1000 }, (_, i) => `--table={{ inputs.table_${i} }} --since={{ tasks.t${i}.outputs.cursor }}`);
  for (let i = 0; i < 20; i++) for (const s of typical) parseTemplate(s); // warm-up
  const typicalMs = best(() => {
    for (const s of typical) parseTemplate(s);
  }, 20);
  const ratio = longMs / smallMs;
  return {
    long_template_bytes: long.length,
    long_ms: +longMs.toFixed(2),
    quarter_ms: +smallMs.toFixed(2),
    length_4x_time_ratio: +ratio.toFixed(2),
    typical_1000_ms: +typicalMs.toFixed(2),
    // 1,000 templates in N ms is N µs each.
    typical_us_each: +typicalMs.toFixed(1),
    meets_target: longMs < 1000 && ratio < 8 && typicalMs < 50,
  };
}
