// The address guard of http tasks, on real loopback HTTP: by default a
// literal loopback, private or link-local (metadata) address is refused
// before any connection, a name resolving to one is refused where it is
// resolved, one private address among public ones is enough, and a redirect
// to a refused address is not followed; SVC_HTTP_TASK_ALLOWED_HOSTS lets a
// listed range or name through, and the connection goes to the address the
// check saw (the resolver is asked once per connection, the server sees the
// URL's host). Names are the test's own (a resolver maps them), so no DNS.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { LookupAddress } from 'node:dns';
import { parseConfig } from '@svc/config';
import { RefusedTarget } from '@svc/net-guard';
import { httpTaskGuard } from '../src/executors/http-task-guard.js';
import { fetchFollowing } from '../src/executors/redirects.js';

let server: http.Server;
let port = 0;
let hits = 0;
const hosts: string[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    hits++;
    hosts.push(req.headers.host ?? '');
    if (req.url === '/to-metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    }
    if (req.url === '/to-unlisted') {
      res.writeHead(302, { location: `http://127.0.0.2:${port}/` }).end();
      return;
    }
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

const NAMES: Record<string, LookupAddress[]> = {
  'db.example.test': [{ address: '127.0.0.1', family: 4 }],
  'mixed.example.test': [
    { address: '93.184.216.34', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ],
  'api.example.test': [{ address: '127.0.0.1', family: 4 }],
};
let lookups = 0;
const resolve = (host: string): Promise<LookupAddress[]> => {
  lookups++;
  const a = NAMES[host];
  return a ? Promise.resolve(a) : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
};

function guardOf(env: Record<string, string>) {
  return httpTaskGuard(parseConfig(env, { cwd: '/tmp', hostname: 't' }), resolve);
}

async function get(url: string, env: Record<string, string> = {}): Promise<{ status?: number; refused?: string; error?: string }> {
  const g = guardOf(env);
  try {
    const res = await fetchFollowing(url, { method: 'GET', headers: {}, body: undefined, signal: AbortSignal.timeout(10_000), dispatcher: g.agent, policy: g.policy });
    await res.text();
    return { status: res.status };
  } catch (err) {
    for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause) if (e instanceof RefusedTarget) return { refused: e.message };
    return { error: String(err) };
  } finally {
    await g.agent.close();
  }
}

test('by default literal loopback, private and link-local addresses are refused without a connection, naming the address and the settings', async () => {
  hits = 0;
  const loop = await get(`http://127.0.0.1:${port}/`);
  assert.match(
    loop.refused ?? '',
    /^address 127\.0\.0\.1 is loopback: refused \(http tasks reach public addresses only, unless SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS is true or SVC_HTTP_TASK_ALLOWED_HOSTS lists/,
  );
  assert.match((await get('http://169.254.169.254/latest/meta-data/')).refused ?? '', /address 169\.254\.169\.254 is link-local/);
  assert.match((await get('http://10.0.0.5:5432/')).refused ?? '', /address 10\.0\.0\.5 is private/);
  assert.match((await get('http://[::ffff:127.0.0.1]:9000/')).refused ?? '', /is loopback/, 'an IPv4-mapped address is judged by its IPv4 address');
  assert.equal(hits, 0, 'no request reached the server');
});

test('a name is refused where it is resolved: one resolving to loopback, and one with a private address among public ones', async () => {
  hits = 0;
  assert.match((await get(`http://db.example.test:${port}/`)).refused ?? '', /^address 127\.0\.0\.1 \(of db\.example\.test\) is loopback: refused/);
  assert.match((await get('http://mixed.example.test/')).refused ?? '', /address 10\.0\.0\.5 \(of mixed\.example\.test\) is private/);
  assert.equal(hits, 0);
});

test('a listed range or name is reached, connected to the checked address; a redirect to an unlisted or metadata address is not followed', async () => {
  const listed = { SVC_HTTP_TASK_ALLOWED_HOSTS: '127.0.0.1/32,api.example.test' };
  assert.deepEqual(await get(`http://127.0.0.1:${port}/`, listed), { status: 200 });
  hosts.length = 0;
  lookups = 0;
  assert.deepEqual(await get(`http://api.example.test:${port}/`, listed), { status: 200 });
  assert.equal(lookups, 1, 'resolved once for the connection');
  assert.deepEqual(hosts, [`api.example.test:${port}`], 'the Host header is the URL host; the connection went to the checked address');
  hits = 0;
  assert.match((await get(`http://127.0.0.1:${port}/to-unlisted`, listed)).refused ?? '', /address 127\.0\.0\.2 is loopback/);
  assert.match((await get(`http://127.0.0.1:${port}/to-metadata`, listed)).refused ?? '', /address 169\.254\.169\.254 is link-local/);
  assert.equal(hits, 2, 'only the first hops were sent');
  assert.deepEqual(await get(`http://db.example.test:${port}/`, listed), { status: 200 }, 'a name not listed is judged by its addresses: 127.0.0.1 is in a listed range');
  assert.match(
    (await get('http://mixed.example.test/', listed)).refused ?? '',
    /10\.0\.0\.5 \(of mixed\.example\.test\) is private/,
    'an address outside the listed ranges is still refused',
  );
});

test('SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS=true reaches any address; a bad allowlist stops start-up naming the entry', async () => {
  assert.deepEqual(await get(`http://db.example.test:${port}/`, { SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS: 'true' }), { status: 200 });
  assert.throws(
    () => parseConfig({ SVC_HTTP_TASK_ALLOWED_HOSTS: '10.0.0.0/33,ok.host, bad host' }),
    (err: Error & { problems?: { variable: string; message: string }[] }) => {
      const p = err.problems?.find((x) => x.variable === 'SVC_HTTP_TASK_ALLOWED_HOSTS');
      assert.ok(p, JSON.stringify(err.problems));
      assert.match(p.message, /"10\.0\.0\.0\/33" is not a CIDR range/);
      assert.match(p.message, /"bad host" is not a host name/);
      return true;
    },
  );
});
