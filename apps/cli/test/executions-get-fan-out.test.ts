// `svc executions get` of an execution with a fanned-out task (for_each), as
// a subprocess against a real stack: the task is one line with its items
// counted by state, the items are listed one line each only with --items,
// and `-o json` is the API's body unchanged. `svc run --watch` without a
// terminal says each item's end, named task[i].
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const NS = 'cli.fan';
const ITEMS = Array.from({ length: 8 }, (_, i) => ({ name: `table-${i}`, rows: i * 10 }));
const FAILING = [2, 5];
const sh = (script: string) => JSON.stringify(['sh', '-c', script]);

before(async () => {
  s = await startStack({ maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow(NS, {
    'fan.flow.yaml': `id: fan
tasks:
  - id: list
    type: command
    command: ${sh(`printf '%s\\n' '${JSON.stringify({ outputs: { tables: ITEMS } })}' >> "$SVC_OUTPUTS"`)}
  - id: load
    type: command
    depends_on: [list]
    for_each: "{{ tasks.list.outputs.tables }}"
    for_each_concurrency: 3
    env: {INDEX: "{{ item_index }}", NAME: "{{ item.name }}"}
    command: ${sh(`case " ${FAILING.join(' ')} " in *" $INDEX "*) echo "cannot load $NAME" >&2; exit 3;; esac; echo "loaded $NAME"`)}
`,
  });
});
after(async () => {
  await s?.stop();
  home.cleanup();
});

test('get shows a fanned-out task on one line with its item counts, and its items only with --items', async () => {
  const watch = await svc(['run', `${NS}/fan`, '--watch', '--no-logs'], { env });
  assert.equal(watch.code, 3, watch.stderr);
  // Without a terminal: each item's end, by name; items under way are not said one by one.
  for (const i of FAILING) assert.match(watch.stderr, new RegExp(`^task load\\[${i}\\] attempt 1: FAILED`, 'm'));
  assert.match(watch.stderr, /^task load\[0\] attempt 1: SUCCESS/m);
  assert.doesNotMatch(watch.stderr, /^task load\[\d+\] attempt 1: (PENDING|QUEUED|RUNNING)/m);
  const id = /execution (\S+) of /.exec(watch.stderr)?.[1];
  assert.ok(id, watch.stderr);

  const get = await svc(['executions', 'get', id], { env });
  assert.equal(get.code, 0, get.stderr);
  assert.match(get.stdout, /^state:\s+FAILED/m);
  assert.match(get.stdout, /^TASK\s+ATTEMPT\s+STATE\s+ITEMS\s+REASON/m);
  assert.match(get.stdout, /^list\s+1\s+SUCCESS\s/m);
  assert.match(get.stdout, /^load\s+1\s+FAILED\s+8 items: 6 success, 2 failed\s/m);
  // One line for the task, none per item.
  assert.equal(get.stdout.match(/^load\s/gm)?.length, 1, get.stdout);
  assert.doesNotMatch(get.stdout, /table-3/);
  assert.doesNotMatch(get.stdout, /items of load/);

  const items = await svc(['executions', 'get', id, '--items'], { env });
  assert.equal(items.code, 0, items.stderr);
  const section = items.stdout.slice(items.stdout.indexOf('items of load'));
  assert.ok(section.startsWith('items of load'), items.stdout);
  assert.match(section, /^INDEX\s+ITEM\s+STATE\s+ATTEMPT\s+DURATION\s+ERROR/m);
  for (let i = 0; i < ITEMS.length; i++) {
    const line = section.split('\n').find((l) => new RegExp(`^${i}\\s`).test(l));
    assert.ok(line, `a line for item ${i} in\n${section}`);
    // The item's value, short (objects as JSON, cut at 40 characters).
    assert.ok(line.includes(JSON.stringify(ITEMS[i]).slice(0, 39)), line);
    assert.match(line, FAILING.includes(i) ? /\sFAILED\s+1\s.*exit code 3/ : /\sSUCCESS\s+1\s/);
  }
  assert.equal(section.split('\n').filter((l) => /^\d+\s/.test(l)).length, ITEMS.length);

  // -o json: the API's body, items and all.
  const json = await svc(['executions', 'get', id, '-o', 'json'], { env });
  assert.equal(json.code, 0, json.stderr);
  const body = JSON.parse(json.stdout);
  assert.deepEqual(body, (await s.api('GET', `/api/v1/executions/${id}`)).body);
  assert.equal(body.task_runs.filter((r: any) => r.task_key === 'load' && r.item_index !== undefined).length, ITEMS.length);
});
