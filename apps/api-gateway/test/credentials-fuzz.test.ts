// 500 random malformed Authorization headers and cookies: only 401s with the
// envelope, never a 500 or a leak.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';

let gw: TestGateway;
let realToken: string;
let realCookie: string;

before(async () => {
  gw = await startTestGateway();
  await makeUser(gw, 'fuzz@example.com', 'admin');
  realCookie = await login(gw, 'fuzz@example.com');
  realToken = await makeToken(gw, realCookie, 'admin');
});
after(() => gw.close());

/** Deterministic random (seeded), so a failure reproduces. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}

test('500 malformed credentials all answer 401 unauthorized in the envelope', async () => {
  const rand = rng(20261121);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const printable = () => String.fromCharCode(33 + Math.floor(rand() * 94));
  const junk = (n: number) => Array.from({ length: n }, printable).join('');
  // A mutation always changes the value (replacing a character by itself would leave a valid credential).
  const mutate = (s: string): string => {
    for (;;) {
      const i = Math.floor(rand() * s.length);
      const out = s.slice(0, i) + pick(['', printable(), printable() + printable()]) + s.slice(i + 1);
      if (out !== s) return out;
    }
  };
  const generators: (() => Record<string, string>)[] = [
    () => ({ authorization: `Bearer ${mutate(realToken)}` }),
    () => ({ authorization: `Bearer svc_${junk(43)}` }),
    () => ({ authorization: `Bearer ${junk(Math.floor(rand() * 80))}` }),
    () => ({ authorization: `${pick(['bearer', 'BEARER', 'Basic', 'Token', 'Bearer  ', ''])} ${realToken}` }),
    () => ({ authorization: junk(1 + Math.floor(rand() * 200)) }),
    () => ({ authorization: `Bearer ${realToken} ${junk(3)}` }),
    () => ({ authorization: `Bearer svc_${crypto.randomBytes(32).toString('base64url').slice(0, 43)}` }),
    () => ({ cookie: `svc_session=${mutate(realCookie.slice('svc_session='.length))}` }),
    () => ({ cookie: `svc_session=${junk(Math.floor(rand() * 100))}` }),
    () => ({ cookie: `svc_session=${crypto.randomBytes(32).toString('base64url')}` }),
    () => ({ cookie: `svc_session=%${junk(5)}%zz` }),
    () => ({ cookie: `${junk(10)}=${junk(10)}; svc_session="${junk(20)}"` }),
    () => ({ cookie: junk(1 + Math.floor(rand() * 300)) }),
    () => ({ cookie: `svc_session=; svc_session=${junk(43)}` }),
  ];
  let n = 0;
  const statuses = new Map<number, number>();
  for (let i = 0; i < 500; i++) {
    const headers = pick(generators)();
    const [method, path] = pick([
      ['GET', '/api/v1/auth/me'],
      ['PATCH', '/api/v1/auth/me'],
      ['GET', '/api/v1/tokens'],
      ['POST', '/api/v1/tokens'],
      ['DELETE', '/api/v1/tokens/01abc'],
      ['GET', '/api/v1/users'],
      ['POST', '/api/v1/auth/logout'],
      ['GET', '/api/v1/audit'],
    ] as const);
    let r;
    try {
      r = await raw(
        gw,
        method,
        path,
        { ...headers, ...(method === 'GET' ? {} : { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' }) },
        method === 'GET' ? undefined : '{}',
      );
    } catch (err) {
      // Node's HTTP client refuses to send some header values (control characters): nothing reached the server.
      if ((err as NodeJS.ErrnoException).code === 'ERR_INVALID_CHAR') continue;
      throw err;
    }
    n++;
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    assert.equal(r.status, 401, `${JSON.stringify(headers)} ${method} ${path} -> ${r.status} ${r.body}`);
    const body = r.json();
    assert.equal(body.error.code, 'unauthorized');
    assert.equal(typeof body.error.message, 'string');
    assert.ok(r.headers['x-request-id']);
    assert.doesNotMatch(r.body, /svc_[0-9A-Za-z]{43}/);
  }
  assert.ok(n >= 450, `at least 450 requests reached the server, got ${n}`);
  // The real credentials still work: the fuzz did not hit them by chance.
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', { authorization: `Bearer ${realToken}` })).status, 200);
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', { cookie: realCookie })).status, 200);
});
