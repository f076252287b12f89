// What git's redaction adds to @svc/masking's table (masking.test.ts): the
// password of `user:password` alone, and the userinfo of any URL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redactor } from './redact.js';

const TABLE: { what: string; secrets: string[]; text: string; redacted: string }[] = [
  { what: 'a credential value', secrets: ['tok-123456789'], text: 'remote said tok-123456789', redacted: 'remote said ***' },
  { what: 'the password of user:password alone', secrets: ['bot:hunter2pass'], text: 'auth hunter2pass failed', redacted: 'auth *** failed' },
  { what: 'a short password part is text', secrets: ['bot:abc'], text: 'abc def', redacted: 'abc def' },
  { what: 'the userinfo of any URL, even one not known', secrets: [], text: 'fatal: https://someone:else@h/x.git', redacted: 'fatal: https://***@h/x.git' },
  { what: 'a URL-encoded credential', secrets: ['p@ss/word'], text: 'https://h/?t=p%40ss%2Fword', redacted: 'https://h/?t=***' },
  {
    what: 'each line of an SSH key',
    secrets: ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n-----END OPENSSH PRIVATE KEY-----'],
    text: 'key b3BlbnNzaC1rZXktdjE leaked',
    redacted: 'key *** leaked',
  },
  { what: 'no secrets: ordinary text unchanged', secrets: [], text: 'Already up to date.', redacted: 'Already up to date.' },
];

for (const row of TABLE) {
  test(`redacted: ${row.what}`, () => {
    assert.equal(new Redactor(row.secrets).redact(row.text), row.redacted);
  });
}
