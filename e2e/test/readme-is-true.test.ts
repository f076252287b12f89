// The README's promises that a test can check: the two commands at the top,
// the configuration table in sync with the config catalogue, and the scripts
// it names present.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

test('the two commands stand at the top of the README', () => {
  const top = readme.slice(0, readme.indexOf('## Configuration'));
  assert.match(top, /^npm start\b/m);
  assert.match(top, /^npm test\b/m);
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  for (const s of ['start', 'test', 'svc', 'bench', 'build']) assert.ok(pkg.scripts[s], s);
  assert.ok(fs.existsSync(path.join(root, '.ci/run')));
  assert.match(fs.readFileSync(path.join(root, '.ci/run'), 'utf8'), /^npm test$/m);
});

test('the configuration table lists every variable of the config catalogue, in sync', async () => {
  const { updatedReadme } = await import(path.join(root, 'scripts/readme-config.mjs'));
  assert.equal(await updatedReadme(readme), readme, 'run: node scripts/readme-config.mjs');
  const { describeConfig } = await import('@svc/config');
  for (const v of describeConfig()) assert.match(readme, new RegExp(`\\| \`${v.variable}\` \\|`));
});
