// Secrets in mask_values never reach a posted log line, nor the completion's error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runTask } from '../src/index.js';
import { makeSpec, MemoryTransport, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();
const SECRET = 'sk-live-0123456789';

test('a secret is masked on stdout and stderr, also when written in two separate writes of one line', async () => {
  // The two halves are separate write(2) calls with a pause between, so they reach the runner as separate chunks.
  const script = `echo "token=${SECRET}"; printf "half=sk-live-01"; sleep 0.2; printf "23456789 end\\n"; echo "err ${SECRET}" >&2`;
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script], mask_values: [SECRET, ''] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS');
  assert.deepEqual(t.text('stdout'), ['token=***', 'half=*** end']);
  assert.deepEqual(t.text('stderr'), ['err ***']);
});

test('a secret inside a 100 KiB line is masked, also where it straddles the 64 KiB cut', async () => {
  // Line 1: the secret right across byte 65536. Line 2: the secret in the middle of a 100 KiB line.
  const script = [
    `import sys`,
    `s = ${JSON.stringify(SECRET)}`,
    `sys.stdout.write("a" * 65530 + s + "b" * 40000 + "\\n")`,
    `sys.stdout.write("c" * 50000 + s + "d" * 52000 + "\\n")`,
  ].join('\n');
  const t = new MemoryTransport(makeSpec({ command: ['python3', '-c', script], mask_values: [SECRET] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS');
  const lines = t.text('stdout');
  assert.ok(lines.every((l) => Buffer.byteLength(l) <= 64 * 1024));
  assert.ok(!lines.join('').includes('sk-live'), 'no part of the secret leaks');
  assert.equal(lines.length, 4);
  assert.equal(lines[0]! + lines[1]!, 'a'.repeat(65530) + '***' + 'b'.repeat(40000));
  assert.equal(lines[2]! + lines[3]!, 'c'.repeat(50000) + '***' + 'd'.repeat(52000));
  assert.equal(lines[0]!.length, 65536);
});

test('the quoted stderr line in a failure error is masked', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', `echo "auth failed for ${SECRET}" >&2; exit 2`], mask_values: [SECRET] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.error, 'exit code 2: auth failed for ***');
});

test('a runner warning line is masked too (an artifact named after a secret, skipped as too big)', async () => {
  const spec = makeSpec({ command: ['bash', '-c', `head -c 2000 /dev/zero > "$SVC_ARTIFACTS_DIR/dump-${SECRET}.bin"`], mask_values: [SECRET] });
  spec.limits.max_artifact_bytes = 1000;
  const t = new MemoryTransport(spec);
  await runTask({ transport: t, workRoot: await root() });
  assert.deepEqual(t.text('stderr'), ['[svc] artifact dump-***.bin skipped: 2000 bytes exceeds the limit of 1000 bytes']);
});
