import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { contextsPath, readContexts, resolveTarget, writeContexts, type ContextsFile } from './contexts.js';

const file: ContextsFile = {
  current: 'prod',
  contexts: [
    { name: 'prod', url: 'https://svc.example.com/', token: 'svc_prod' },
    { name: 'dev', url: 'http://127.0.0.1:8080', token: 'svc_dev' },
  ],
};

test('the current context, or --context; SVC_URL and SVC_TOKEN override one by one', () => {
  assert.deepEqual(resolveTarget({}, file), { url: 'https://svc.example.com', token: 'svc_prod', context: file.contexts[0] });
  assert.equal(resolveTarget({}, file, 'dev').token, 'svc_dev');
  assert.deepEqual(resolveTarget({ SVC_TOKEN: 'svc_env' }, file), { url: 'https://svc.example.com', token: 'svc_env', context: file.contexts[0] });
  assert.equal(resolveTarget({ SVC_URL: 'http://other:1' }, file).url, 'http://other:1');
  assert.deepEqual(resolveTarget({}, { contexts: [] }), { url: 'http://127.0.0.1:8080' });
  assert.throws(() => resolveTarget({}, file, 'nope'), /no context named "nope"/);
});

test('SVC_TOKEN_FILE gives the token from a mounted file, less one trailing newline; with SVC_TOKEN too it is a usage error', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-token-file-'));
  try {
    const file = path.join(dir, 'token');
    fs.writeFileSync(file, 'svc_from_file\n', { mode: 0o600 });
    assert.equal(resolveTarget({ SVC_TOKEN_FILE: file }, { contexts: [] }).token, 'svc_from_file');
    assert.throws(
      () => resolveTarget({ SVC_TOKEN: 'svc_env', SVC_TOKEN_FILE: file }, { contexts: [] }),
      (err: Error & { exitCode?: number }) => /SVC_TOKEN and SVC_TOKEN_FILE are both set/.test(err.message) && err.exitCode === 2,
    );
    assert.throws(() => resolveTarget({ SVC_TOKEN_FILE: path.join(dir, 'none') }, { contexts: [] }), /SVC_TOKEN_FILE: cannot read .*none.*ENOENT/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the file lives under the config directory; SVC_CONFIG names another', () => {
  assert.equal(contextsPath({ SVC_CONFIG: '/x/c.yaml' }), '/x/c.yaml');
  assert.equal(contextsPath({ XDG_CONFIG_HOME: '/cfg', HOME: '/h' }), '/cfg/svc/config.yaml');
  if (process.platform === 'linux') assert.equal(contextsPath({ HOME: '/h' }), '/h/.config/svc/config.yaml');
});

test('written with mode 0600 (also over a looser file) and read back', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ctx-'));
  try {
    const f = path.join(dir, 'svc', 'config.yaml');
    fs.mkdirSync(path.dirname(f));
    fs.writeFileSync(f, 'contexts: []\n', { mode: 0o644 });
    writeContexts(f, file);
    assert.equal(fs.statSync(f).mode & 0o777, 0o600);
    assert.deepEqual(readContexts(f), file);
    assert.deepEqual(readContexts(path.join(dir, 'missing.yaml')), { contexts: [] });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
