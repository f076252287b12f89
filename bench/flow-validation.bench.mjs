// Benchmark: time to validate one 200-task flow file (YAML parse with source
// positions, JSON Schema, semantic checks, template parsing), after warm-up,
// in one process. Target: under 5 ms per validation.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { validateFlow } = await import(path.join(root, 'packages/flow-schema/dist/index.js'));

/** A realistic 200-task flow: chains and fan-ins, templates reading inputs, vars, secrets and upstream outputs. */
export function twoHundredTaskFlow() {
  const lines = [
    'id: big-etl',
    'description: A large flow for the validation benchmark',
    'labels: {team: data, tier: "1"}',
    'inputs:',
    '  - {id: day, type: string, default: "2026-01-01"}',
    '  - {id: region, type: select, values: [eu, us], default: eu}',
    'variables: {bucket: my-bucket}',
    'env: {BUCKET: "{{ vars.bucket }}", TOKEN: "{{ secret(\'TOKEN\') }}"}',
    'retry: {max_attempts: 3, backoff: exponential, initial: 10s, max: 10m}',
    'triggers:',
    '  - {id: nightly, type: schedule, cron: "0 2 * * *", timezone: Europe/Paris}',
    '  - {id: hook, type: webhook, inputs: {day: "{{ trigger.body.day }}"}}',
    'tasks:',
  ];
  for (let i = 0; i < 200; i++) {
    const deps = i === 0 ? '' : i % 10 === 0 ? `, depends_on: [t${i - 1}, t${i - 5}, t${i - 10}]` : `, depends_on: [t${i - 1}]`;
    const up = i === 0 ? '{{ inputs.day }}' : `{{ tasks.t${i - 1}.outputs.path }}`;
    switch (i % 4) {
      case 0:
        lines.push(`  - {id: t${i}, type: script, file: etl/step${i}.py, args: ["--day", "${up}", "--region", "{{ inputs.region }}"], timeout: 30m${deps}}`);
        break;
      case 1:
        lines.push(`  - {id: t${i}, type: command, command: [psql, -c, "select '${up}'"], env: {PGPASSWORD: "{{ secret('DB') }}"}${deps}}`);
        break;
      case 2:
        lines.push(`  - {id: t${i}, type: http, method: POST, url: "https://api.example.com/{{ execution.id }}", headers: {X-Up: "${up}"}, body: "{{ json(inputs) }}"${deps}}`);
        break;
      default:
        lines.push(
          `  - {id: t${i}, type: script, file: etl/s${i}.sh, executor: {type: docker, image: "alpine:3", resources: {limits: {cpu: "1", memory: 512Mi}}}, run_if: always${deps}}`,
        );
    }
  }
  lines.push('outputs: {last: "{{ tasks.t199.outputs.path }}"}');
  return `${lines.join('\n')}\n`;
}

export async function run() {
  const src = twoHundredTaskFlow();
  const first = validateFlow(src);
  if (first.errors.length) throw new Error(`benchmark flow is invalid: ${JSON.stringify(first.errors.slice(0, 3))}`);
  for (let i = 0; i < 200; i++) validateFlow(src); // warm-up
  const times = [];
  for (let i = 0; i < 1000; i++) {
    const t = process.hrtime.bigint();
    validateFlow(src);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return {
    flow_bytes: Buffer.byteLength(src),
    tasks: 200,
    validations: times.length,
    mean_ms: +mean.toFixed(3),
    p50_ms: +times[500].toFixed(3),
    p99_ms: +times[990].toFixed(3),
    target_ms: 5,
    meets_target: mean < 5,
  };
}
