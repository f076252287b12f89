import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { describeConfig } from './catalogue.js';
import { parseConfig } from './config.js';
import { ConfigError, type ConfigProblem } from './errors.js';
import { loadConfig } from './load.js';
import { readVariable, stripOneNewline } from './secret-files.js';

const machine = { cwd: '/srv/app', hostname: 'node-7' };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-secret-files-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A real file holding `content`, as a Docker or Kubernetes secret mount would. */
function secretFile(content: string): string {
  const file = path.join(dir, `secret-${++files}`);
  fs.writeFileSync(file, content, { mode: 0o600 });
  return file;
}

const masterKeys = () => `k1:${crypto.randomBytes(32).toString('base64')}`;
const dbUrl = 'postgres://svc:s3cr3t-pa55@db.internal:5432/svc';

function problemsOf(env: Record<string, string>): ConfigProblem[] {
  try {
    parseConfig(env, machine);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    return err.problems;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

describe('secrets as files (X_FILE)', () => {
  it('reads the value of SVC_MASTER_KEYS and SVC_DATABASE_URL from their files', () => {
    const keys = masterKeys();
    const config = parseConfig({ SVC_MASTER_KEYS_FILE: secretFile(keys), SVC_DATABASE_URL_FILE: secretFile(dbUrl) }, machine);
    assert.equal(config.databaseUrl, dbUrl);
    assert.deepEqual(config.masterKeys, parseConfig({ SVC_MASTER_KEYS: keys }, machine).masterKeys);
  });

  it('reads every variable holding a credential from a file', () => {
    const env = {
      SVC_STORAGE_URL_FILE: secretFile('s3://AKIA:wJalr@minio:9000/svc?ssl=false\n'),
      SVC_SMTP_URL_FILE: secretFile('smtp://mailer:hunter22@smtp.internal:587\n'),
      SVC_ADMIN_EMAIL: 'root@example.com',
      SVC_ADMIN_PASSWORD_FILE: secretFile('correct horse battery\n'),
      SVC_K8S_TOKEN_FILE: secretFile('eyJhbGciOi.token\n'),
      SVC_TOKEN_FILE: secretFile('svc_abc\n'),
    };
    const config = parseConfig(env, machine);
    assert.equal(config.storageUrl, 's3://AKIA:wJalr@minio:9000/svc?ssl=false');
    assert.equal(config.smtpUrl, 'smtp://mailer:hunter22@smtp.internal:587');
    assert.equal(config.adminPassword, 'correct horse battery');
    assert.equal(config.k8sToken, 'eyJhbGciOi.token');
    assert.equal(config.cliToken, 'svc_abc');
  });

  it('strips one trailing newline, \\n or \\r\\n, and only one', () => {
    assert.equal(parseConfig({ SVC_DATABASE_URL_FILE: secretFile(`${dbUrl}\n`) }, machine).databaseUrl, dbUrl);
    assert.equal(parseConfig({ SVC_DATABASE_URL_FILE: secretFile(`${dbUrl}\r\n`) }, machine).databaseUrl, dbUrl);
    assert.equal(stripOneNewline('pass word \n\n'), 'pass word \n');
    assert.equal(stripOneNewline('pass word \r\n'), 'pass word ');
    assert.equal(stripOneNewline('no newline'), 'no newline');
    // Readers outside parseConfig (the CLI, infra/migrate.mjs) get exactly that, untrimmed.
    assert.equal(readVariable({ SVC_TOKEN_FILE: secretFile(' svc_x \n') }, 'SVC_TOKEN'), ' svc_x ');
  });

  it('refuses X and X_FILE set together, naming both, and exits 2', () => {
    const keys = masterKeys();
    const file = secretFile(keys);
    const problems = problemsOf({ SVC_MASTER_KEYS: keys, SVC_MASTER_KEYS_FILE: file });
    assert.deepEqual(problems, [{ variable: 'SVC_MASTER_KEYS_FILE', message: 'SVC_MASTER_KEYS and SVC_MASTER_KEYS_FILE are both set; set only one' }]);
    let stderr = '';
    let code: number | undefined;
    assert.throws(
      () =>
        loadConfig(
          { SVC_MASTER_KEYS: keys, SVC_MASTER_KEYS_FILE: file },
          {
            ...machine,
            stderr: { write: (s: string) => (stderr += s) },
            exit: (c: number) => {
              code = c;
              throw new Error('exited');
            },
          },
        ),
      /exited/,
    );
    assert.equal(code, 2);
    assert.match(stderr, /SVC_MASTER_KEYS_FILE: SVC_MASTER_KEYS and SVC_MASTER_KEYS_FILE are both set/);
    assert.ok(!stderr.includes(keys), 'the key is not printed');
  });

  it('counts an empty X or X_FILE as unset, as for every variable', () => {
    assert.equal(parseConfig({ SVC_DATABASE_URL: '', SVC_DATABASE_URL_FILE: secretFile(dbUrl) }, machine).databaseUrl, dbUrl);
    assert.equal(parseConfig({ SVC_DATABASE_URL: dbUrl, SVC_DATABASE_URL_FILE: ' ' }, machine).databaseUrl, dbUrl);
  });

  it('refuses a missing, unreadable or empty file, naming the variable and the path', () => {
    const missing = path.join(dir, 'no-such-secret');
    assert.deepEqual(problemsOf({ SVC_DATABASE_URL_FILE: missing }), [{ variable: 'SVC_DATABASE_URL_FILE', message: `cannot read ${JSON.stringify(missing)}: no such file` }]);
    assert.deepEqual(problemsOf({ SVC_MASTER_KEYS_FILE: dir }), [{ variable: 'SVC_MASTER_KEYS_FILE', message: `cannot read ${JSON.stringify(dir)}: is a directory` }]);
    const empty = secretFile('\n');
    assert.deepEqual(
      problemsOf({ SVC_ADMIN_EMAIL: 'a@b.c', SVC_ADMIN_PASSWORD_FILE: empty }).find((p) => p.variable === 'SVC_ADMIN_PASSWORD_FILE'),
      {
        variable: 'SVC_ADMIN_PASSWORD_FILE',
        message: `${JSON.stringify(empty)} is empty`,
      },
    );
    assert.throws(
      () => readVariable({ SVC_DATABASE_URL_FILE: missing }, 'SVC_DATABASE_URL'),
      (err: unknown) => err instanceof ConfigError && err.message.includes(missing),
    );
  });

  it('never shows the content of a file, even when the value in it is invalid', () => {
    const badKeys = 'k1:not-base64-s3cr3t-material';
    const badUrl = 'mysql://svc:s3cr3t-pa55@db/svc';
    const problems = problemsOf({
      SVC_MASTER_KEYS_FILE: secretFile(badKeys),
      SVC_DATABASE_URL_FILE: secretFile(badUrl),
      SVC_SMTP_URL: 'smtp://x:y@h:25',
      SVC_SMTP_URL_FILE: secretFile('smtp://mailer:other-s3cr3t@h:25'),
    });
    assert.deepEqual(
      problems.map((p) => p.variable),
      ['SVC_DATABASE_URL', 'SVC_MASTER_KEYS', 'SVC_SMTP_URL_FILE'],
    );
    for (const p of problems) assert.equal(p.got, undefined, `${p.variable} echoes nothing`);
    assert.match(problems[0]!.message, /\(read from SVC_DATABASE_URL_FILE\)$/);
    assert.match(problems[1]!.message, /\(read from SVC_MASTER_KEYS_FILE\)$/);
    const message = new ConfigError(problems).message;
    for (const secret of ['s3cr3t', 'not-base64', 'x:y']) assert.ok(!message.includes(secret), `${secret} in ${message}`);
  });

  it('documents the _FILE form of every variable holding a credential, right after it', () => {
    const names = describeConfig().map((r) => r.variable);
    for (const name of ['SVC_DATABASE_URL', 'SVC_STORAGE_URL', 'SVC_MASTER_KEYS', 'SVC_ADMIN_PASSWORD', 'SVC_K8S_TOKEN', 'SVC_SMTP_URL', 'SVC_TOKEN']) {
      assert.equal(names[names.indexOf(name) + 1], `${name}_FILE`);
    }
    for (const name of ['SVC_PORT', 'SVC_ADMIN_EMAIL', 'SVC_DATA_DIR']) assert.ok(!names.includes(`${name}_FILE`), `${name} holds no credential`);
  });
});
