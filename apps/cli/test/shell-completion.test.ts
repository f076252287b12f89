// svc completion bash|zsh: the scripts complete commands, subcommands and
// options from the command tree. Bash is driven for real (the completion
// function is called as bash would); zsh is syntax-checked when installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { svc } from './support.js';

async function complete(words: string[]): Promise<string[]> {
  const script = (await svc(['completion', 'bash'])).stdout;
  const line = words.map((w) => `'${w}'`).join(' ');
  const r = spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _svc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).sort();
}

test('bash completes commands, subcommands and options', async () => {
  assert.deepEqual(await complete(['svc', 'n']), ['namespace', 'ns']);
  assert.deepEqual(await complete(['svc', 'ns', 'p']), ['pull', 'push']);
  assert.deepEqual(await complete(['svc', 'executions', 'l']), ['list', 'logs']);
  assert.deepEqual(await complete(['svc', 'executions', 'r']), ['reject', 'replay', 'rerun', 'restart', 'resume']);
  assert.deepEqual(await complete(['svc', 'executions', 'a']), ['approve']);
  assert.deepEqual(await complete(['svc', 'executions', 'p']), ['pause']);
  assert.deepEqual(
    (await complete(['svc', 'executions', 'approve', 'ID', '--'])).filter((o) => ['--task', '--input', '--comment'].includes(o)),
    ['--comment', '--input', '--task'],
  );
  assert.ok((await complete(['svc', 'ns', 'push', '--d'])).includes('--dry-run'));
  assert.ok((await complete(['svc', '--context', 'x', 'run', '--w'])).includes('--watch'));
  assert.deepEqual(await complete(['svc', 'context', 'u']), ['use']);
});

test('the zsh script is valid zsh (when zsh is installed); an unknown shell is a usage error', async (t) => {
  const script = await svc(['completion', 'zsh']);
  assert.equal(script.code, 0);
  assert.match(script.stdout, /^#compdef svc/);
  assert.match(script.stdout, /'svc ns' 'list create get allow-callers delete push pull diff versions revert'/);
  if (spawnSync('zsh', ['--version']).status !== 0) t.diagnostic('zsh is not installed: syntax check skipped');
  else assert.equal(spawnSync('zsh', ['-n'], { input: script.stdout }).status, 0);
  const bad = await svc(['completion', 'fish']);
  assert.equal(bad.code, 2);
});
