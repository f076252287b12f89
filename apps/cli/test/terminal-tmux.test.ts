// The CLI in a real terminal (tmux): the interactive login prompt (email
// echoed, password masked and never on screen), the live task view of
// `svc run --watch` redrawn in place, colours on a terminal and none with
// NO_COLOR, and the progress bar of a push. tmux comes from the machine, or is
// installed with apt-get when running as root; otherwise these tests skip loudly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as yaml from 'js-yaml';
import { cliMain, ensureTmux, loud, startStack, tempHome, until, writeTree, type Stack } from './support.js';

const tmuxState = ensureTmux();
const skip = tmuxState.ok ? false : `tmux unavailable: ${tmuxState.reason}`;
if (!tmuxState.ok) loud([`TERMINAL TESTS SKIPPED: ${tmuxState.reason}`]);

const socket = `svc-cli-test-${process.pid}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
let s: Stack;
const home = tempHome();
const NS = 'tty';

/** Starts `svc ARGS` in a new tmux window of its own; the pane stays after exit with `EXIT:<code>`. */
function start(name: string, args: string[], env: Record<string, string>): void {
  const envArgs = Object.entries({ TERM: 'xterm-256color', PATH: process.env.PATH ?? '', ...env }).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const cmd = `env -i ${envArgs.join(' ')} ${JSON.stringify(process.execPath)} ${JSON.stringify(cliMain)} ${args.map((a) => JSON.stringify(a)).join(' ')}; echo "EXIT:$?"; sleep 600`;
  const r = tmux('new-session', '-d', '-s', name, '-x', '110', '-y', '40', cmd);
  assert.equal(r.status, 0, r.stderr);
}

/** The visible screen (with escapes when `escapes`). Debugging knob: SVC_CLI_TEST_SHOW_SCREENS=1 prints each capture. */
const screen = (name: string, escapes = false) => {
  const text = tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', name).stdout;
  if (process.env.SVC_CLI_TEST_SHOW_SCREENS) process.stderr.write(`--- ${name} ---\n${text}\n`);
  return text;
};

before(async () => {
  if (skip) return;
  s = await startStack({ maintenance: false });
  await s.saveFlow(NS, {
    'live.flow.yaml': `id: live
tasks:
  - id: extract
    type: command
    command: ["sh", "-c", "echo extracting; sleep 2"]
  - id: transform
    type: command
    depends_on: [extract]
    command: ["sh", "-c", "echo transforming; sleep 2"]
  - id: load
    type: command
    depends_on: [transform]
    command: ["echo", "loaded"]
`,
  });
});
after(async () => {
  tmux('kill-server');
  await s?.stop();
  home.cleanup();
});

test('svc login in a terminal prompts for the email and a masked password', { skip }, async () => {
  start('login', ['login', s.url, '--name', 'tty'], home.env);
  await until(() => /Email/.test(screen('login')), 30_000, 'the email prompt');
  tmux('send-keys', '-t', 'login', '-l', 'e2e@example.com');
  tmux('send-keys', '-t', 'login', 'Enter');
  await until(() => /Password/.test(screen('login')), 10_000, 'the password prompt');
  tmux('send-keys', '-t', 'login', '-l', 'e2e password 1');
  tmux('send-keys', '-t', 'login', 'Enter');
  const out = await until(() => (/EXIT:\d+/.test(screen('login')) ? screen('login') : undefined), 30_000, 'login to end');
  assert.match(out, /EXIT:0/, out);
  assert.match(out, /e2e@example\.com/, 'the email is echoed');
  assert.doesNotMatch(out, /e2e password 1/, 'the password is never on screen');
  assert.match(out, /\*{5,}/, 'the password is masked');
  assert.match(out, /Logged in to .* as e2e@example\.com \(context "tty"/);
  const file = path.join(home.dir, '.config/svc/config.yaml');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const data = yaml.load(fs.readFileSync(file, 'utf8')) as { current: string; contexts: { token: string }[] };
  assert.equal(data.current, 'tty');
  assert.match(data.contexts[0]!.token, /^svc_/);
});

test('svc run --watch on a terminal shows a live task view redrawn in place, in colour', { skip }, async () => {
  start('watch', ['run', `${NS}/live`, '--watch'], { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token });
  // While it runs: the view shows the running task with its spinner and the others waiting or done.
  const during = await until(
    () => {
      const sc = screen('watch');
      return /transform\s+RUNNING/.test(sc) ? sc : undefined;
    },
    30_000,
    'transform RUNNING in the live view',
  );
  assert.match(during, /✓ extract\s+SUCCESS/, during);
  assert.match(during, /tty\/live .* RUNNING\s+\d\/\d tasks/, during);
  const end = await until(() => (/EXIT:\d+/.test(screen('watch')) ? screen('watch') : undefined), 60_000, 'the watch to end');
  assert.match(end, /EXIT:0/, end);
  for (const t of ['extract', 'transform', 'load']) assert.match(end, new RegExp(`✓ ${t}\\s+SUCCESS`), end);
  // Redrawn in place: the final view is on screen once, not once per update.
  assert.equal(end.match(/^tty\/live /gm)?.length, 1, end);
  assert.match(end, /\[extract\] extracting/);
  assert.match(end, /ended SUCCESS/);
  assert.match(screen('watch', true), /\x1b\[[0-9;]*32m/, 'green on a terminal');
});

test('NO_COLOR turns colours off on a terminal; a push shows a progress bar', { skip }, async () => {
  const dir = path.join(home.dir, 'many');
  writeTree(dir, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`files/f${i}.txt`, `file ${i}\n`])));
  start('push', ['ns', 'push', dir, '-n', 'tty.many', '--create'], { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token, NO_COLOR: '1' });
  const out = await until(() => (/EXIT:\d+/.test(screen('push')) ? screen('push') : undefined), 60_000, 'the push to end');
  assert.match(out, /EXIT:0/, out);
  assert.match(out, /pushing to tty\.many \[#+\] 100% 40\/40 changes/, out);
  assert.match(out, /saved tty\.many version 1/);
  const raw = screen('push', true);
  assert.doesNotMatch(raw, /\x1b\[3[0-9]m/, 'no colour with NO_COLOR');
});

test('svc secret set on a terminal asks for the value without echo', { skip }, async () => {
  const VALUE = 'typed-secret-value-77';
  start('secret', ['secret', 'set', 'TYPED', '-n', NS], { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token });
  await until(() => /Value of TYPED/.test(screen('secret')), 30_000, 'the value prompt');
  tmux('send-keys', '-t', 'secret', '-l', VALUE);
  tmux('send-keys', '-t', 'secret', 'Enter');
  const out = await until(() => (/EXIT:\d+/.test(screen('secret')) ? screen('secret') : undefined), 30_000, 'secret set to end');
  assert.match(out, /EXIT:0/, out);
  assert.doesNotMatch(out, new RegExp(VALUE), 'the value is never on screen');
  assert.match(out, /secret TYPED set in namespace tty/);
  const keys = (await s.api('GET', `/api/v1/namespaces/${NS}/secrets`)).body.items.map((x: { key: string }) => x.key);
  assert.ok(keys.includes('TYPED'));
});
