// YAML alias bombs and deep nesting in flow files and namespace.yaml, saved
// and validated through the real gateway: each is refused quickly with a
// clear error naming the problem, and the gateway keeps answering /healthz
// while it works on one (probed in parallel).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { answerOf, assertWellFormed } from './hostile/envelope.js';

let s: Stack;
const NS = 'bombs';
/** Generous for a loaded 2-core machine; the refusals take milliseconds on an idle one. */
const QUICK_MS = 15_000;

function billionLaughs(levels = 10): string {
  let src = 'lol0: &lol0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i < levels; i++)
    src += `lol${i}: &lol${i} [${Array(9)
      .fill(`*lol${i - 1}`)
      .join(', ')}]\n`;
  return src;
}

const BOMBS: { name: string; source: string; message: RegExp }[] = [
  { name: 'billion laughs (10^9 nodes)', source: `id: b\n${billionLaughs()}tasks: [{id: t, type: command, command: ["true"]}]\n`, message: /alias bomb/ },
  {
    name: 'billion laughs inside a task',
    source: `id: b\nx: &a [1,1,1,1,1,1,1,1,1,1]\ny: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nz: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nw: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\nv: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\ntasks: [{id: t, type: command, command: *e}]\n`,
    message: /alias bomb/,
  },
  {
    name: 'a long string aliased 20,000 times (few nodes, 18 GB expanded)',
    source: `id: b\nvariables: {big: &big "${'x'.repeat(900_000)}"}\ninputs: [{id: j, type: json, default: [${Array(20_000).fill('*big').join(',')}]}]\ntasks: [{id: t, type: command, command: ["true"]}]\n`,
    message: /alias bomb/,
  },
  { name: 'a recursive alias', source: 'id: b\na: &loop\n  b: *loop\ntasks: []\n', message: /recursive alias/ },
  { name: 'flow sequences nested 100,000 deep', source: `id: b\ntasks: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`, message: /nest|depth|deep|could not be read|syntax/i },
  {
    name: 'block mappings nested 1,000 deep',
    source: `id: b\n${Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} 1\n`,
    message: /nest|depth|deep|could not be read|syntax/i,
  },
  {
    name: 'JSON (flow style) objects nested 100,000 deep',
    source: `{"id": "b", "tasks": ${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}\n`,
    message: /nest|depth|deep|could not be read|syntax/i,
  },
  { name: 'a file over 1 MiB', source: `id: b\ndescription: "${'x'.repeat(1_100_000)}"\ntasks: []\n`, message: /more than the limit/ },
  { name: 'a custom tag', source: 'id: b\nx: !!js/function "function () { return 1 }"\ntasks: []\n', message: /tag|syntax|unknown/i },
];

before(async () => {
  s = await startStack({ dispatchers: 0, maintenance: false });
  await s.api('POST', '/api/v1/namespaces', { name: NS });
});
after(() => s?.stop());

/** Runs `work` while probing /healthz every 100 ms; returns its answer, its time and the slowest probe. */
async function whileProbing<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; slowestProbeMs: number; probes: number }> {
  let done = false;
  let slowest = 0;
  let probes = 0;
  const prober = (async () => {
    while (!done) {
      const t = Date.now();
      const r = await fetch(`${s.url}/healthz`, { signal: AbortSignal.timeout(60_000) });
      assert.equal(r.status, 200);
      slowest = Math.max(slowest, Date.now() - t);
      probes++;
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  const t0 = Date.now();
  try {
    const value = await work();
    return { value, ms: Date.now() - t0, slowestProbeMs: slowest, probes };
  } finally {
    done = true;
    await prober;
  }
}

const post = async (p: string, body: unknown) => {
  const r = await fetch(`${s.url}${p}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const a = await answerOf(r);
  assertWellFormed(a, p);
  return { status: a.status, json: JSON.parse(a.text) };
};

for (const bomb of BOMBS) {
  test(`a flow file with ${bomb.name} is refused quickly with a clear error, and the gateway stays responsive`, async () => {
    const save = await whileProbing(() => post(`/api/v1/namespaces/${NS}/changes`, { message: 'bomb', changes: [{ op: 'put', path: 'b.flow.yaml', content: bomb.source }] }));
    assert.equal(save.value.status, 422, JSON.stringify(save.value.json).slice(0, 500));
    assert.equal(save.value.json.error.code, 'flow_invalid');
    const messages = save.value.json.error.details.map((d: any) => d.message).join(' | ');
    assert.match(messages, bomb.message);
    assert.ok(save.ms < QUICK_MS, `refused in ${save.ms} ms`);
    const validate = await whileProbing(() => post(`/api/v1/namespaces/${NS}/validate`, { path: 'b.flow.yaml', content: bomb.source }));
    assert.ok(validate.value.status === 200 || validate.value.status === 413, String(validate.value.status));
    if (validate.value.status === 200) {
      assert.equal(validate.value.json.valid, false);
      assert.match(validate.value.json.errors.map((e: any) => e.message).join(' | '), bomb.message);
    }
    console.log(
      `${bomb.name}: ${Buffer.byteLength(bomb.source)} bytes refused on save in ${save.ms} ms and on validate in ${validate.ms} ms; slowest /healthz meanwhile ${Math.max(save.slowestProbeMs, validate.slowestProbeMs)} ms over ${save.probes + validate.probes} probes`,
    );
  });
}

test('a namespace.yaml alias bomb is refused the same way', async () => {
  const save = await whileProbing(() => post(`/api/v1/namespaces/${NS}/changes`, { message: 'bomb', changes: [{ op: 'put', path: 'namespace.yaml', content: billionLaughs() }] }));
  assert.equal(save.value.status, 422, JSON.stringify(save.value.json).slice(0, 500));
  assert.match(JSON.stringify(save.value.json.error), /alias bomb/);
  assert.ok(save.ms < QUICK_MS, `refused in ${save.ms} ms`);
});

test('the namespace holds none of the bombs and the gateway still serves', async () => {
  const files = (await s.api('GET', `/api/v1/namespaces/${NS}/files`)).body.items ?? [];
  assert.deepEqual(files, []);
  assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
  assert.equal(s.procs[0]!.child.exitCode, null);
});
