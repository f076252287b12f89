import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { EXTENSION_OPERATION_IDS } from '@svc/api-spec';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const cli = path.join(repoRoot, 'apps/cli/dist/main.js');
const specPath = path.resolve(repoRoot, '../shared/spec/service-spec.md');

function runSvc(args: string[], opts: { cwd?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // No SVC_DATABASE_URL and a bogus one would not matter: the command must not touch a database.
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: opts.cwd ?? repoRoot,
      env: { PATH: process.env.PATH ?? '', SVC_DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** operationIds of the spec's "Operation index"; `(webhook start)` becomes `webhookStart`. */
function indexOperationIds(markdown: string): string[] {
  const start = markdown.indexOf('### Operation index');
  const section = markdown.slice(start, markdown.indexOf('\n###', start + 1));
  const ids: string[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*([^|]+?)\s*\|\s*(?:GET|POST|PUT|PATCH|DELETE)\s*\|/.exec(line.trim());
    if (!m) continue;
    const label = m[1]!;
    ids.push(
      label.startsWith('(')
        ? label
            .replace(/[()]/g, '')
            .split(/\s+/)
            .map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)))
            .join('')
        : label,
    );
  }
  return ids;
}

function operationIds(doc: any): string[] {
  return Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((o) => o.operationId));
}

test('the built cli exists (build apps/cli first)', () => {
  assert.ok(fs.existsSync(cli), `${cli} is missing`);
});

test('svc openapi prints a valid OpenAPI 3.1.0 document with every operation of the spec index', async () => {
  const r = await runSvc(['openapi']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.openapi, '3.1.0');
  assert.ok(r.stdout.startsWith('{\n  "openapi"'), 'pretty-printed');
  const result = await new Validator().validate(doc);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  const ids = operationIds(doc);
  assert.equal(new Set(ids).size, ids.length, 'each operationId once');
  if (fs.existsSync(specPath)) {
    const index = indexOperationIds(fs.readFileSync(specPath, 'utf8'));
    assert.ok(index.length >= 100, `parsed ${index.length} index rows`);
    // The spec's index, and the catalog's documented additions beyond it.
    const expected = [...index, ...EXTENSION_OPERATION_IDS];
    const missing = expected.filter((id) => !ids.includes(id));
    assert.deepEqual(missing, []);
    assert.deepEqual([...ids].sort(), [...expected].sort());
  }
});

test('svc openapi --output FILE writes the same document to a file', async () => {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'svc-openapi-'));
  try {
    const r = await runSvc(['openapi', '--output', 'out/api.json', '--server-url', 'https://svc.example.com'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    const doc = JSON.parse(await fs.promises.readFile(path.join(dir, 'out/api.json'), 'utf8'));
    assert.deepEqual(doc.servers, [{ url: 'https://svc.example.com', description: 'svc server' }]);
    assert.ok(operationIds(doc).includes('triggerFlow'));
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
});

test('svc --help lists the commands; an unknown command prints usage on stderr and exits 2', async () => {
  const help = await runSvc(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /openapi( \[options\])?\s+Print the OpenAPI document/);
  const unknown = await runSvc(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /unknown command 'frobnicate'/);
  assert.match(unknown.stderr, /svc --help/);
  const none = await runSvc([]);
  assert.equal(none.code, 2);
  const badFlag = await runSvc(['openapi', '--nope']);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /unknown option '--nope'/);
  assert.match(badFlag.stderr, /svc openapi --help/);
});
