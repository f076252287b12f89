// Real identities for tests: users written through the identity package,
// sessions and tokens obtained through the HTTP API like any client.
import http from 'node:http';
import type { components } from '@svc/api-spec';
import { createUser, type Role } from '@svc/identity';
import type { TestGateway } from './helpers.js';

export const PASSWORD = 'correct horse battery';

/** A clock tests move by hand. */
export function testClock(start = new Date('2026-06-01T12:00:00Z')) {
  let t = start.getTime();
  return { now: () => new Date(t), advance: (ms: number) => (t += ms), set: (d: Date) => (t = d.getTime()) };
}

export async function makeUser(gw: TestGateway, email: string, role: Role, password = PASSWORD) {
  const { user } = await createUser(gw.db.pool, { email, role, password }, new Date());
  return user;
}

/** Logs in over HTTP; returns the `svc_session=...` cookie pair. */
export async function login(gw: TestGateway, email: string, password = PASSWORD): Promise<string> {
  const r = await fetch(`${gw.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (r.status !== 200) throw new Error(`login of ${email} answered ${r.status}: ${await r.text()}`);
  const set = r.headers.get('set-cookie') ?? '';
  const m = /svc_session=([^;]+)/.exec(set);
  if (!m) throw new Error(`no session cookie in ${set}`);
  return `svc_session=${m[1]}`;
}

/** Creates an API token over HTTP with a session of `email`; returns its secret. */
export async function makeToken(gw: TestGateway, cookie: string, role: Role, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await fetch(`${gw.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ name: `t-${role}`, role, ...extra }),
  });
  if (r.status !== 201) throw new Error(`createToken answered ${r.status}: ${await r.text()}`);
  return ((await r.json()) as { secret: string }).secret;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json<T = components['schemas']['ErrorEnvelope']>(): T;
}

/**
 * An HTTP request with exactly the headers given (fetch adds or refuses some,
 * such as Origin and Sec-Fetch-Site, which the Origin check tests need).
 */
export function raw(gw: TestGateway, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<RawResponse> {
  const u = new URL(path, gw.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data, json: () => JSON.parse(data) }));
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
