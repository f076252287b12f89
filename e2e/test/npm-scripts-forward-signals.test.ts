// `npm start` under a process manager: npm forwards SIGTERM and SIGINT to the
// shell it runs the script in, not to the shell's children. With
// `node scripts/start.mjs` the shell died and `svc local` kept running
// (services, database and port) as an orphan; the scripts `exec` node, so the
// signal reaches it and it stops everything (npm-start-local.test.ts covers
// that stop). Checked here on the scripts as npm runs them (`sh -c SCRIPT`),
// with a stand-in for the node program, so no build or database starts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

const STANDIN = `
process.on('SIGTERM', () => { process.stdout.write('stopping on SIGTERM\\n'); process.exit(0); });
process.stdout.write('ready ' + process.pid + '\\n');
setInterval(() => undefined, 1000);
`;

for (const name of ['start', 'test', 'svc']) {
  test(`npm run ${name}: a SIGTERM to the script's shell reaches node`, async () => {
    const script = pkg.scripts[name]!;
    const program = /scripts\/\w+\.mjs/.exec(script)?.[0];
    assert.ok(program, `${name} runs a script under scripts/: ${script}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-npm-script-'));
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.writeFileSync(path.join(dir, program), STANDIN);
    const sh = spawn('sh', ['-c', script], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    sh.stdout.on('data', (d) => (out += d));
    try {
      for (let i = 0; i < 200 && !out.includes('ready'); i++) await new Promise((r) => setTimeout(r, 50));
      assert.match(out, /ready/);
      const ended = new Promise<void>((r) => sh.once('close', () => r()));
      sh.kill('SIGTERM'); // what npm does with a SIGTERM it receives
      await Promise.race([ended, new Promise((r) => setTimeout(r, 10_000))]);
      assert.match(out, /stopping on SIGTERM/, `the program got the signal (output: ${JSON.stringify(out)})`);
    } finally {
      sh.kill('SIGKILL');
      // An orphan left by a script that does not exec.
      const pid = Number(/ready (\d+)/.exec(out)?.[1]);
      if (pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
