// listFlows' `q` (an extension): a case-insensitive substring of the flow id,
// its description or its namespace, matched literally (`%`, `_` and `\` are
// plain characters), combined with `namespace` and with a `none` user's bound
// namespaces, paged with the cursor like any list; more than 200 characters is
// 422 `validation_failed` on field `q`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';

let gw: TestGateway;
let admin = '';
let viewer = '';
let bound = '';

/** Flows by namespace: id and description. */
const FLOWS: Record<string, [string, string][]> = {
  other: [
    ['nightly-report', 'A report'],
    ['plain', 'Nothing to see'],
  ],
  'search.alpha': [
    ['load-orders', 'Loads ORDERS nightly'],
    ['pct', 'Uses 100% of quota'],
    ['pcx', 'Uses 1000 of quota'],
    ['und', 'an a_b style'],
    ['unx', 'an axb style'],
    ['bsl', 'dir C:\\temp'],
    ['bsx', 'dir C:temp'],
  ],
  'search.beta': [
    ['sync', 'Syncs nightly'],
    ['zeta', 'Last of all'],
  ],
};

interface Listed {
  status: number;
  ids: string[];
  next?: string;
  body: { items?: Pick<components['schemas']['FlowSummary'], 'namespace' | 'id'>[]; next_cursor?: string } & Partial<components['schemas']['ErrorEnvelope']>;
}

async function list(token: string, query: Record<string, string>): Promise<Listed> {
  const r = await raw(gw, 'GET', `/api/v1/flows?${new URLSearchParams(query).toString()}`, { authorization: `Bearer ${token}` });
  const body = r.json<Listed['body']>();
  return { status: r.status, ids: (body.items ?? []).map((f) => `${f.namespace}/${f.id}`), next: body.next_cursor, body };
}

/** Every match of `query`, page by page of `limit`; the page sizes too. */
async function walk(token: string, query: Record<string, string>, limit: number): Promise<{ ids: string[]; pages: number[] }> {
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const r = await list(token, { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    ids.push(...r.ids);
    pages.push(r.ids.length);
    cursor = r.next;
    if (!cursor) return { ids, pages };
  }
  throw new Error('more than 20 pages');
}

/** A token without a role of its own: the owner's, bindings included (a token's role caps them). */
async function ownerRoleToken(email: string): Promise<string> {
  const minted = await raw(
    gw,
    'POST',
    '/api/v1/tokens',
    { cookie: await login(gw, email), 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    JSON.stringify({ name: 'mine' }),
  );
  assert.equal(minted.status, 201, minted.body);
  return minted.json<{ secret: string }>().secret;
}

before(async () => {
  gw = await startTestGateway();
  await makeUser(gw, 'admin@example.com', 'admin');
  const cookie = await login(gw, 'admin@example.com');
  admin = await makeToken(gw, cookie, 'admin');
  viewer = await makeToken(gw, cookie, 'viewer');
  const api = (method: string, path: string, body: unknown) =>
    raw(gw, method, path, { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, JSON.stringify(body));
  for (const [ns, flows] of Object.entries(FLOWS)) {
    assert.equal((await api('POST', '/api/v1/namespaces', { name: ns })).status, 201);
    const changes = flows.map(([id, description]) => ({
      op: 'put',
      path: `${id}.flow.yaml`,
      content: JSON.stringify({ id, description, tasks: [{ id: 't', type: 'command', command: ['true'] }] }),
    }));
    const saved = await api('POST', `/api/v1/namespaces/${ns}/changes`, { message: 'flows', changes });
    assert.equal(saved.status, 201, saved.body);
  }
  // A `none` user bound as viewer to search.beta only.
  await makeUser(gw, 'nobody@example.com', 'none');
  assert.equal((await api('POST', '/api/v1/role-bindings', { namespace: 'search.beta', user: 'nobody@example.com', role: 'viewer' })).status, 201);
  bound = await ownerRoleToken('nobody@example.com');
  const me = (await raw(gw, 'GET', '/api/v1/auth/me', { authorization: `Bearer ${bound}` })).json<{ role: string; role_bindings?: unknown }>();
  assert.deepEqual([me.role, me.role_bindings], ['none', [{ namespace: 'search.beta', role: 'viewer' }]]);
});
after(() => gw?.close());

test('q matches the flow id, the description or the namespace, ignoring case', async () => {
  assert.deepEqual((await list(viewer, { q: 'load' })).ids, ['search.alpha/load-orders'], 'id');
  assert.deepEqual((await list(viewer, { q: 'LOAD-ord' })).ids, ['search.alpha/load-orders'], 'id in capitals');
  assert.deepEqual((await list(viewer, { q: 'orders nightly' })).ids, ['search.alpha/load-orders'], 'description in other case');
  assert.deepEqual((await list(viewer, { q: 'syncs' })).ids, ['search.beta/sync'], 'description');
  assert.deepEqual((await list(viewer, { q: 'BeTa' })).ids, ['search.beta/sync', 'search.beta/zeta'], 'namespace fragment');
  assert.deepEqual((await list(viewer, { q: 'h.b' })).ids, ['search.beta/sync', 'search.beta/zeta'], 'across the dot of a namespace');
  // Id, description and namespace at once, ordered by namespace and id.
  assert.deepEqual((await list(viewer, { q: 'nightly' })).ids, ['other/nightly-report', 'search.alpha/load-orders', 'search.beta/sync']);
  assert.deepEqual((await list(viewer, { q: 'no such text' })).ids, []);
  // An empty q is no filter.
  assert.equal((await list(viewer, { q: '' })).ids.length, 11);
});

test('q combines with the namespace filter', async () => {
  assert.deepEqual((await list(viewer, { q: 'nightly', namespace: 'search' })).ids, ['search.alpha/load-orders', 'search.beta/sync']);
  assert.deepEqual((await list(viewer, { q: 'nightly', namespace: 'search.beta' })).ids, ['search.beta/sync']);
  // The namespace's own name matches q, yet only its subtree is listed.
  assert.deepEqual((await list(viewer, { q: 'search', namespace: 'search.beta' })).ids, ['search.beta/sync', 'search.beta/zeta']);
  assert.deepEqual((await list(viewer, { q: 'nightly', namespace: 'nowhere' })).ids, []);
});

test('%, _ and backslash in q match themselves, not as LIKE wildcards', async () => {
  // As wildcards "100%" would find "1000" too, "a_b" "axb", and "C:\t" (\t being t) "C:temp" instead of "C:\temp".
  assert.deepEqual((await list(viewer, { q: '100%' })).ids, ['search.alpha/pct']);
  assert.deepEqual((await list(viewer, { q: 'a_b' })).ids, ['search.alpha/und']);
  assert.deepEqual((await list(viewer, { q: 'C:\\t' })).ids, ['search.alpha/bsl']);
  assert.deepEqual((await list(viewer, { q: '%' })).ids, ['search.alpha/pct']);
  assert.deepEqual((await list(viewer, { q: '_' })).ids, ['search.alpha/und']);
  assert.deepEqual((await list(viewer, { q: '\\' })).ids, ['search.alpha/bsl']);
  // The namespace filter is literal as well: as a pattern, "searc_" would select search's children.
  assert.deepEqual((await list(viewer, { namespace: 'searc_' })).ids, []);
});

test('the cursor pages through the matches of q only', async () => {
  // "nightly" matches three flows; flows that do not match sort between them.
  const walked = await walk(viewer, { q: 'NIGHTLY' }, 2);
  assert.deepEqual(walked.pages, [2, 1]);
  assert.deepEqual(walked.ids, ['other/nightly-report', 'search.alpha/load-orders', 'search.beta/sync']);
  // Two full pages and nothing after: the second page has no cursor.
  const quota = await walk(viewer, { q: 'quota' }, 1);
  assert.deepEqual(quota.pages, [1, 1]);
  assert.deepEqual(quota.ids, ['search.alpha/pct', 'search.alpha/pcx']);
  // With the namespace filter too.
  const scoped = await walk(viewer, { q: 'a', namespace: 'search.alpha' }, 3);
  assert.deepEqual(scoped.pages, [3, 3, 1]);
  assert.deepEqual(scoped.ids, (await list(viewer, { namespace: 'search.alpha' })).ids);
});

test('a none user bound to one namespace finds only the matches there', async () => {
  assert.deepEqual((await list(bound, { q: 'nightly' })).ids, ['search.beta/sync']);
  assert.deepEqual((await list(bound, { q: 'search' })).ids, ['search.beta/sync', 'search.beta/zeta']);
  assert.deepEqual((await list(bound, { q: 'report' })).ids, [], 'other/nightly-report is not readable');
  assert.deepEqual((await list(bound, { q: 'quota' })).ids, [], 'nor search.alpha');
  const walked = await walk(bound, { q: 'S' }, 1);
  assert.deepEqual(walked.ids, ['search.beta/sync', 'search.beta/zeta']);
  assert.deepEqual(walked.pages, [1, 1]);
  // The admin, by contrast, finds every match of "report".
  assert.deepEqual((await list(admin, { q: 'report' })).ids, ['other/nightly-report']);
});

test('a none user without a binding, or with a token of role none, reads no flow, searched or not', async () => {
  // Both read no namespace at all (an empty scope, not no scope): a token's bindings are capped at its role.
  const capped = await makeToken(gw, await login(gw, 'nobody@example.com'), 'none');
  await makeUser(gw, 'unbound@example.com', 'none');
  const unbound = await ownerRoleToken('unbound@example.com');
  for (const token of [capped, unbound]) {
    const queries: Record<string, string>[] = [{}, { q: 'nightly' }, { q: 'search' }, { q: 'SEARCH.beta' }];
    for (const query of queries) {
      const r = await list(token, query);
      assert.equal(r.status, 200, JSON.stringify(query));
      assert.deepEqual(r.ids, [], JSON.stringify(query));
    }
    assert.equal((await list(token, { namespace: 'search.beta', q: 'sync' })).status, 403);
  }
});

test('q longer than 200 characters is 422 validation_failed on field q', async () => {
  const r = await list(viewer, { q: 'x'.repeat(201) });
  assert.equal(r.status, 422);
  assert.equal(r.body.error?.code, 'validation_failed');
  assert.deepEqual(
    r.body.error?.details?.map((d) => d.field),
    ['q'],
  );
  assert.match(r.body.error!.details![0]!.message, /200/);
  const ok = await list(viewer, { q: 'x'.repeat(200) });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.ids, []);
});
