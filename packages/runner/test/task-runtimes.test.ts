// Script tasks: the runner prefixes the interpreter of `runtime`, found on PATH.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runTask } from '../src/index.js';
import { makeSpec, MemoryTransport, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();

for (const [runtime, file, content] of [
  ['bash', 'main.sh', 'echo "bash says $1 from $SVC_TASK_ID"'],
  ['python', 'main.py', 'import os, sys\nprint(f"python says {sys.argv[1]} from {os.environ[\'SVC_TASK_ID\']}")'],
  ['node', 'main.js', 'console.log(`node says ${process.argv[2]} from ${process.env.SVC_TASK_ID}`)'],
] as const) {
  test(`runtime ${runtime} runs the script file with its arguments`, async () => {
    const t = new MemoryTransport(makeSpec({ command: [file, 'hello'], runtime, files: { [file]: content } }));
    const c = await runTask({ transport: t, workRoot: await root() });
    assert.equal(c.state, 'SUCCESS', c.error);
    assert.deepEqual(t.text(), [`${runtime} says hello from task-1`]);
  });
}

test('a python script that raises is FAILED exit_code with the last traceback line', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['main.py'], runtime: 'python', files: { 'main.py': 'raise ValueError("bad input")' } }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'FAILED');
  assert.equal(c.error, 'exit code 1: ValueError: bad input');
});

test('runtime bun runs a TypeScript file (bun from its npm package when none is on the PATH)', async () => {
  // An enum, a type annotation, an interface and a generic: none of them is JavaScript.
  const ts = [
    'enum Colour { Red = 1, Green = 2 }',
    'interface Sum { total: number }',
    'function add<T extends number>(a: T, b: T): Sum { return { total: a + b }; }',
    'const n: number = Number(process.argv[2]);',
    'console.log(`bun says ${add(n, Colour.Green).total} from ${process.env.SVC_TASK_ID}`);',
  ].join('\n');
  const spec = makeSpec({ command: ['main.ts', '40'], runtime: 'bun', files: { 'main.ts': ts } });
  spec.env.PATH = '/usr/bin:/bin';
  const t = new MemoryTransport(spec);
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS', c.error);
  assert.deepEqual(t.text(), ['bun says 42 from task-1']);
});

test('a runtime missing from PATH is FAILED runtime_not_found naming the tool', async () => {
  const spec = makeSpec({ command: ['main.sh'], runtime: 'bash', files: { 'main.sh': 'echo 1' } });
  spec.env.PATH = '/nonexistent/bin';
  const t = new MemoryTransport(spec);
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.deepEqual(c, { state: 'FAILED', reason: 'runtime_not_found', error: 'runtime bash: bash not found on the PATH', exit_code: null, outputs: {}, metrics: [] });
  assert.equal(t.completions.length, 1);
});

test('the interpreter is looked up on the spec PATH when it sets one', async () => {
  const spec = makeSpec({ command: ['main.py'], runtime: 'python', files: { 'main.py': 'print(1)' } });
  spec.env.PATH = '/nonexistent/bin';
  const c = await runTask({ transport: new MemoryTransport(spec), workRoot: await root() });
  assert.equal(c.reason, 'runtime_not_found');
  assert.equal(c.error, 'runtime python: python3 or python not found on the PATH');
});

test('an unknown runtime is FAILED executor_error', async () => {
  const c = await runTask({ transport: new MemoryTransport(makeSpec({ command: ['x.rb'], runtime: 'ruby' })), workRoot: await root() });
  assert.equal(c.reason, 'executor_error');
  assert.equal(c.error, 'unknown runtime "ruby"');
});
