// A real OpenID Connect provider for tests, shared by the gateway's and the
// web UI's: the certified `oidc-provider` package, in process on loopback,
// with its development login and consent forms. Accounts are a map the test
// edits (claims at each login), and the client is registered for the
// gateway's redirect URI. Also a small browser over fetch (cookies per
// origin, redirects followed by hand) that signs in through those forms.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations
import Provider from 'oidc-provider';

export interface Account {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
  /** Google's Workspace domain claim. */
  hd?: string;
  /** Microsoft Entra's tenant id claim. */
  tid?: string;
}

export interface TestIdp {
  issuer: string;
  accounts: Map<string, Account>;
  close(): Promise<void>;
}

/** A port free on 127.0.0.1 now (the gateway and the IdP must know their URLs before they listen). */
export async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A private RSA signing key as a JWK, for an IdP that rotates its keys. */
export function signingKey(kid: string): Record<string, unknown> {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
}

export async function startIdp(opts: {
  port?: number;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
  idTokenTtlSeconds?: number;
  /** Signing keys (default: the package's development key). */
  keys?: Record<string, unknown>[];
  /** Share another instance's accounts (a restarted IdP). */
  accounts?: Map<string, Account>;
}): Promise<TestIdp> {
  const port = opts.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = opts.accounts ?? new Map<string, Account>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: [opts.redirectUri],
        post_logout_redirect_uris: [opts.postLogoutRedirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub', 'hd', 'tid'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    // As Google and Entra do, the ID token carries the claims too (hd and tid are read from it), not only userinfo.
    conformIdTokenClaims: false,
    scopes: ['openid', 'email', 'profile', 'groups'],
    ttl: { IdToken: opts.idTokenTtlSeconds ?? 60 },
    ...(opts.keys ? { jwks: { keys: opts.keys } } : {}),
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    async findAccount(_ctx: unknown, id: string) {
      const a = accounts.get(id);
      if (!a) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...accounts.get(id) }) };
    },
  });
  const server = http.createServer(provider.callback());
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    issuer,
    accounts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface Seen {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A browser over fetch: cookies per origin, every response recorded. */
export class TestBrowser {
  readonly jar = new Map<string, Map<string, string>>();
  readonly seen: Seen[] = [];

  cookie(origin: string, name: string): string | undefined {
    return this.jar.get(origin)?.get(name);
  }

  async request(method: string, url: string, body?: URLSearchParams, headers: Record<string, string> = {}): Promise<Seen> {
    const u = new URL(url);
    const cookies = [...(this.jar.get(u.origin) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
    const r = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { ...(cookies ? { cookie: cookies } : {}), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      ...(body ? { body: body.toString() } : {}),
    });
    const jar = this.jar.get(u.origin) ?? new Map<string, string>();
    this.jar.set(u.origin, jar);
    for (const c of r.headers.getSetCookie()) {
      const m = /^([^=]+)=([^;]*)/.exec(c);
      if (!m) continue;
      if (m[2] === '' || /Max-Age=0|expires=Thu, 01 Jan 1970/i.test(c)) jar.delete(m[1]!);
      else jar.set(m[1]!, m[2]!);
    }
    const seen = { method, url, status: r.status, headers: Object.fromEntries(r.headers), body: await r.text() };
    this.seen.push(seen);
    return seen;
  }

  /**
   * From an authorization URL, signs in at the IdP's forms as `login` and
   * consents; returns the URL the IdP sends the browser back to (not followed).
   */
  async throughIdp(authorizationUrl: string, login: string, backTo: string): Promise<string> {
    let next: { method: string; url: string; body?: URLSearchParams } = { method: 'GET', url: authorizationUrl };
    for (let i = 0; i < 20; i++) {
      const r = await this.request(next.method, next.url, next.body);
      if (r.status >= 300 && r.status < 400) {
        const to = new URL(r.headers.location!, next.url).href;
        if (to.startsWith(backTo)) return to;
        next = { method: 'GET', url: to };
        continue;
      }
      if (r.status !== 200) throw new Error(`the IdP answered ${r.status} at ${next.url}: ${r.body.slice(0, 500)}`);
      const action = /<form[^>]*action="([^"]+)"/.exec(r.body)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(r.body)?.[1];
      if (!action || !prompt) throw new Error(`no form at ${next.url}: ${r.body.slice(0, 500)}`);
      const form = new URLSearchParams({ prompt });
      if (prompt === 'login') {
        form.set('login', login);
        form.set('password', 'any password');
      }
      next = { method: 'POST', url: new URL(action.replace(/&amp;/g, '&'), next.url).href, body: form };
    }
    throw new Error('too many steps at the IdP');
  }
}
