// `svc flow list --search TEXT` against a real stack, as a subprocess: the
// server searches (listFlows' q) the flow ids, descriptions and namespaces,
// ignoring case, with `%` taken literally and combined with `-n`; the CLI
// follows the cursor through more than one page of matches, each flow once;
// a search over the server's 200 characters ends with its validation error.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;

const flowFile = (id: string, description: string) => JSON.stringify({ id, description, tasks: [{ id: 't', type: 'command', command: ['true'] }] });

/** More matches than one page of the CLI's listing (200): bulk/item-000 to item-409, the even ones described with NEEDLE. */
const BULK = 410;
const needles = Array.from({ length: BULK }, (_, i) => `item-${String(i).padStart(3, '0')}`).filter((_, i) => i % 2 === 0);

before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow('cli.reports', {
    'daily.flow.yaml': flowFile('daily', 'Sends the Daily revenue report'),
    'cleanup.flow.yaml': flowFile('cleanup', 'Frees 100% of the scratch space'),
    'trim.flow.yaml': flowFile('trim', 'Frees 1000 rows'),
  });
  await s.saveFlow('cli.other', { 'daily.flow.yaml': flowFile('daily', 'Nothing about money') });
  const bulk: Record<string, string> = {};
  for (let i = 0; i < BULK; i++) {
    const id = `item-${String(i).padStart(3, '0')}`;
    bulk[`${id}.flow.yaml`] = flowFile(id, i % 2 === 0 ? 'has a NEEDLE' : 'only hay');
  }
  await s.saveFlow('bulk', bulk);
});
after(async () => {
  await s?.stop();
  home.cleanup();
});

/** `svc flow list ARGS -o json`, as namespace/id. */
async function listed(args: string[]): Promise<string[]> {
  const r = await svc(['flow', 'list', ...args, '-o', 'json'], { env });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { namespace: string; id: string }[]).map((f) => `${f.namespace}/${f.id}`);
}

test('svc flow list --search finds flows by description, id and namespace fragment, ignoring case', async () => {
  assert.deepEqual(await listed(['--search', 'REVENUE']), ['cli.reports/daily']);
  assert.deepEqual(await listed(['--search', 'DAIly']), ['cli.other/daily', 'cli.reports/daily']);
  assert.deepEqual(await listed(['--search', 'i.rep']), ['cli.reports/cleanup', 'cli.reports/daily', 'cli.reports/trim']);
  // % is a plain character: "100%" is not "100" followed by anything (which "1000 rows" would be).
  assert.deepEqual(await listed(['--search', '100%']), ['cli.reports/cleanup']);
  // With the namespace filter.
  assert.deepEqual(await listed(['--search', 'daily', '-n', 'cli.other']), ['cli.other/daily']);
  assert.deepEqual(await listed(['--search', 'no such flow']), []);
  // The table: the matching rows only, the description in its column.
  const table = await svc(['flow', 'list', '--search', 'revenue'], { env });
  assert.equal(table.code, 0, table.stderr);
  const lines = table.stdout.trim().split('\n');
  assert.match(lines[0]!, /NAMESPACE\s+FLOW\s+ENABLED\s+UPDATED\s+DESCRIPTION/);
  assert.equal(lines.length, 2, table.stdout);
  assert.match(lines[1]!, /^cli\.reports\s+daily\s+yes\s+.*Sends the Daily revenue report/);
  // Nothing found: the table says so.
  assert.match((await svc(['flow', 'list', '--search', 'no such flow'], { env })).stderr, /no flows/);
  // The name the option had before still works.
  assert.deepEqual(await listed(['-q', 'revenue']), ['cli.reports/daily']);
});

test('svc flow list --search follows the cursor through every page of matches, and only matches', async () => {
  const found = await listed(['--search', 'needle']);
  assert.equal(found.length, needles.length);
  assert.ok(found.length > 200, 'more than one page');
  assert.deepEqual(
    found,
    needles.map((id) => `bulk/${id}`),
  );
});

test('svc flow list --search longer than 200 characters exits 1 with the validation error on q', async () => {
  const r = await svc(['flow', 'list', '--search', 'x'.repeat(201)], { env });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /validation_failed/);
  assert.match(r.stderr, /\bq\b/);
});
