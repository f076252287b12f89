// Alert email channels send as an organization only from the namespaces it
// allows (docs/using/emails.md#namespaces), on a real stack with a local SMTP
// server. A user of global role `none`, bound editor on `team-a` only:
// - cannot save a team-a rule whose email channel names `org-b` (allowed for
//   team-b only): 422 naming channels[0].organization, at create and update;
// - can with `org-a` (allowed for team-a), and a failed team-a execution
//   reaches the SMTP server once, from org-a's verified sender;
// - cannot put a rule in team-b at all (403: the role boundary);
// once an admin takes team-a off org-a's list, the next failure's email is
// not sent: its delivery ends failed saying why, and the SMTP server gets
// nothing more. A namespace's rules are capped (SVC_ALERT_RULES_PER_NAMESPACE
// = 3 here): the fourth gets 422 on namespace. No key appears anywhere.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { addOrganizationSender, createOrganization, createOrganizationKey, setOrganizationNamespaces } from '@svc/identity';
import { flow, sh, until } from './engine-support.js';
import { boundUser, startStack, type Stack } from './stack.js';

let s: Stack;
let smtp: SMTPServer;
const mails: string[] = [];
let editorToken = '';
let orgKey = '';

async function as(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const r = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, text };
}

const email = (organization: string, domain: string) => ({ type: 'email', organization, from: `alerts@${domain}`, to: 'oncall@example.test' });

before(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push(Buffer.concat(chunks).toString('utf8').replace(/=\r\n/g, ''));
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  s = await startStack({ maintenance: false, env: { SVC_ALERT_RULES_PER_NAMESPACE: '3' } });
  s.startApp('maintenance', { SVC_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}` });

  for (const [org, domain, ns] of [
    ['org-a', 'a.test', 'team-a'],
    ['org-b', 'b.test', 'team-b'],
  ] as const) {
    await createOrganization(s.db, org);
    await addOrganizationSender(s.db, org, domain);
    await setOrganizationNamespaces(s.db, org, [ns]);
  }
  orgKey = (await createOrganizationKey(s.db, 'org-a', 'app')).key;
  for (const ns of ['team-a', 'team-b'])
    await s.saveFlow(ns, { 'boom.flow.yaml': flow({ id: 'boom', tasks: [{ id: 'fail', type: 'command', command: sh('echo going down; exit 2') }] }) });

  const bound = await boundUser(s, { email: 'bound@example.com', password: 'bound password 1', namespace: 'team-a', role: 'editor', tokenName: 'bound', tokenRole: 'editor' });
  editorToken = bound.token;
});
after(async () => {
  await s?.stop();
  await new Promise<void>((r) => smtp.close(() => r()));
});

test('a team-a editor may name only an organization that allows team-a; its email is really sent, and stops when the admin takes team-a off', async () => {
  const rule = { name: 'a failures', namespace: 'team-a', events: ['failed'] };
  const theirs = await as(editorToken, 'POST', '/api/v1/alerts', { ...rule, channels: [email('org-b', 'b.test')] });
  assert.equal(theirs.status, 422, theirs.text);
  assert.equal(theirs.body.error.code, 'validation_failed');
  assert.deepEqual(
    theirs.body.error.details.map((d: { field: string }) => d.field),
    ['channels[0].organization'],
  );
  assert.match(theirs.body.error.details[0].message, /org-b does not allow namespace team-a/);
  // The role boundary stays: a rule in team-b is not the bound editor's to make.
  assert.equal((await as(editorToken, 'POST', '/api/v1/alerts', { ...rule, namespace: 'team-b', channels: [email('org-b', 'b.test')] })).status, 403);

  const ours = await as(editorToken, 'POST', '/api/v1/alerts', { ...rule, channels: [email('org-a', 'a.test')] });
  assert.equal(ours.status, 201, ours.text);
  const switched = await as(editorToken, 'PATCH', `/api/v1/alerts/${ours.body.id}`, { channels: [email('org-b', 'b.test')] });
  assert.equal(switched.status, 422, switched.text);
  assert.deepEqual(
    switched.body.error.details.map((d: { field: string }) => d.field),
    ['channels[0].organization'],
  );

  const first = await s.waitEnded((await s.trigger('team-a', 'boom')).id, 60_000);
  assert.equal(first.state, 'FAILED');
  // A team-b failure: the team-a rule does not watch it.
  assert.equal((await s.waitEnded((await s.trigger('team-b', 'boom')).id, 60_000)).state, 'FAILED');
  await until('the email', () => mails.some((m) => m.includes(`/executions/${first.id}`)), 60_000, 200);
  const mail = mails.find((m) => m.includes(`/executions/${first.id}`))!;
  assert.match(mail, /From: alerts@a\.test/);
  assert.match(mail, /To: oncall@example\.test/);

  // The admin takes team-a off org-a's list: the next failure is not sent, and says why.
  const off = await s.api('PATCH', '/api/v1/organizations/org-a', { namespaces: ['team-a-other'] });
  assert.equal(off.status, 200, JSON.stringify(off.body));
  assert.deepEqual(off.body.namespaces, ['team-a-other'], 'team-a-other is a sibling, not team-a');
  const second = await s.waitEnded((await s.trigger('team-a', 'boom')).id, 60_000);
  const refused = await until(
    'the refused delivery',
    async () => {
      const r = await as(editorToken, 'GET', `/api/v1/alerts/${ours.body.id}/deliveries`);
      return r.body.items.find((d: { execution_id: string; status: string }) => d.execution_id === second.id && d.status === 'failed');
    },
    60_000,
    200,
  );
  assert.match(refused.error, /organization org-a does not allow namespace team-a/);
  assert.equal(refused.attempt_log.length, 1, 'refused for good, not retried');
  await new Promise((r) => setTimeout(r, 2000));
  assert.equal(mails.filter((m) => m.includes(`/executions/${second.id}`)).length, 0, 'nothing sent');
  assert.equal(mails.length, 1);
  const emails = await s.db.query(`SELECT count(*)::int AS n FROM emails`);
  assert.equal(emails.rows[0].n, 1, 'nothing queued for the refused one');

  for (const text of [...mails, ...s.procs.map((p) => p.output()), JSON.stringify((await s.api('GET', '/api/v1/organizations')).body)]) assert.ok(!text.includes(orgKey));
});

test('a namespace holds at most SVC_ALERT_RULES_PER_NAMESPACE rules', async () => {
  const hook = { type: 'webhook', url: 'https://hooks.example.test/x', signing_secret: 'K' };
  const have = (await as(editorToken, 'GET', '/api/v1/alerts')).body.items.filter((r: { namespace: string }) => r.namespace === 'team-a').length;
  for (let i = have; i < 3; i++)
    assert.equal((await as(editorToken, 'POST', '/api/v1/alerts', { name: `r${i}`, namespace: 'team-a', events: ['failed'], channels: [hook] })).status, 201);
  const past = await as(editorToken, 'POST', '/api/v1/alerts', { name: 'one more', namespace: 'team-a', events: ['failed'], channels: [hook] });
  assert.equal(past.status, 422, past.text);
  assert.deepEqual(
    past.body.error.details.map((d: { field: string }) => d.field),
    ['namespace'],
  );
  assert.match(past.body.error.details[0].message, /SVC_ALERT_RULES_PER_NAMESPACE/);
  // Another namespace has its own room.
  assert.equal((await s.api('POST', '/api/v1/alerts', { name: 'b', namespace: 'team-b', events: ['failed'], channels: [hook] })).status, 201);
});
