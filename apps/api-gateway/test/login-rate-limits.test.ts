import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { makeUser, PASSWORD, raw, testClock } from './identity-helpers.js';

const clock = testClock();
let a: TestGateway;
let b: TestGateway;

before(async () => {
  a = await startTestGateway({ now: clock.now });
  b = await startTestGateway({ now: clock.now, shareWith: a });
  await makeUser(a, 'bob@example.com', 'viewer');
});
after(async () => {
  await b.close();
  await a.close();
});

const attempt = (g: TestGateway, email: string, password: string, ip?: string) =>
  raw(g, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json', ...(ip ? { 'x-forwarded-for': ip } : {}) }, JSON.stringify({ email, password }));

test('10 failed logins for one email, spread over two instances, then 429 with Retry-After even for the right password', async () => {
  for (let i = 0; i < 10; i++) {
    const r = await attempt(i % 2 ? a : b, 'bob@example.com', `wrong-${i}-password`);
    assert.equal(r.status, 401, `attempt ${i + 1}`);
    clock.advance(30_000);
  }
  const r = await attempt(a, 'bob@example.com', PASSWORD);
  assert.equal(r.status, 429);
  assert.equal(r.json().error.code, 'rate_limited');
  const retry = Number(r.headers['retry-after']);
  // The first failure was 5 min ago: the window frees in 15 - 5 = 10 min.
  assert.ok(retry > 9 * 60 && retry <= 10 * 60 + 1, `Retry-After ${retry}`);
  clock.advance(retry * 1000);
  assert.equal((await attempt(b, 'bob@example.com', PASSWORD)).status, 200, 'allowed again once the window passed');
});

test('50 failed logins from one IP address, across emails, then 429', async () => {
  clock.advance(20 * 60_000);
  // x-forwarded-for is honoured from loopback proxies only, which the test client is.
  for (let i = 0; i < 50; i++) assert.equal((await attempt(i % 2 ? a : b, `nobody${i}@example.com`, 'wrong password', '198.51.100.7')).status, 401);
  const r = await attempt(a, 'someone-new@example.com', 'wrong password', '198.51.100.7');
  assert.equal(r.status, 429);
  assert.ok(Number(r.headers['retry-after']) > 0);
  assert.equal((await attempt(a, 'bob@example.com', PASSWORD, '198.51.100.8')).status, 200, 'another address is not limited');
});

test('a login for an unknown email takes as long as for a known one', async () => {
  clock.advance(60 * 60_000);
  const time = async (email: string) => {
    const t = process.hrtime.bigint();
    await attempt(a, email, 'not the password', '203.0.113.9');
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  await time('bob@example.com'); // warm-up
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 6; i++) {
    known.push(await time('bob@example.com'));
    unknown.push(await time(`ghost${i}@example.com`));
  }
  // The fastest of several interleaved samples is the least disturbed by other
  // work on the machine (the suite runs files in parallel).
  const [k, u] = [Math.min(...known), Math.min(...unknown)];
  assert.ok(k > 20 && u > 20, `both pay for a bcrypt comparison (known ${k.toFixed(1)} ms, unknown ${u.toFixed(1)} ms)`);
  const ratio = u / k;
  assert.ok(ratio > 0.5 && ratio < 2, `unknown/known fastest login time ratio ${ratio.toFixed(2)} (known ${k.toFixed(1)} ms)`);
});
