// The README's promises that a test can check: the two commands at the top
// and the scripts it names present; and the configuration table of the docs
// (docs/operating/configuration.md) in sync with the config catalogue.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

test('the two commands stand at the top of the README', () => {
  const start = readme.indexOf('\n## The two commands\n');
  assert.ok(start >= 0, 'the README has a "## The two commands" section');
  const top = readme.slice(0, readme.indexOf('\n## ', start + 1));
  assert.match(top, /^npm start\b/m);
  assert.match(top, /^npm test\b/m);
  assert.match(top, /N passed, N failed/);
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  for (const s of ['start', 'test', 'svc', 'bench', 'build']) assert.ok(pkg.scripts[s], s);
  assert.ok(fs.existsSync(path.join(root, '.ci/run')));
  assert.match(fs.readFileSync(path.join(root, '.ci/run'), 'utf8'), /^npm test$/m);
});

test('the configuration table of the docs lists every variable of the config catalogue, in sync', async () => {
  const { CONFIG_DOC, updatedConfigDoc } = (await import(path.join(root, 'scripts/readme-config.mjs'))) as {
    CONFIG_DOC: string;
    updatedConfigDoc: (text: string) => Promise<string>;
  };
  const page = fs.readFileSync(path.join(root, CONFIG_DOC), 'utf8');
  assert.equal(await updatedConfigDoc(page), page, 'run: node scripts/readme-config.mjs');
  const { describeConfig } = await import('@svc/config');
  for (const v of describeConfig()) assert.match(page, new RegExp(`\\| \`${v.variable}\` \\|`));
  assert.match(readme, new RegExp(CONFIG_DOC.replace(/[.]/g, '\\.')), 'the README links the configuration page');
});
