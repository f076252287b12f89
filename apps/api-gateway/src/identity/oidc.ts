// The OpenID Connect client of single sign-on: the admin's settings
// (sso_settings), the issuer's discovery document and keys, and the passport
// strategy of openid-client that runs the authorization code flow with PKCE,
// `state` and `nonce`.
//
// Discovery is read when the settings are written and again at most once an
// hour. Every ID token's signature is checked with the issuer's keys: the
// JWKS is cached across logins (getJwksCache/setJwksCache), and openid-client
// fetches it again when it is 5 minutes old, or when an ID token names a key
// it does not hold (a rotation), at most once a minute.
// ID tokens are judged on the gateway's clock (tests move it).
import type pg from 'pg';
import * as client from 'openid-client';
import { Strategy, type AuthenticateOptions, type VerifyFunction } from 'openid-client/passport';
import type { Request } from 'express';
import type { MasterKey } from '@svc/config';
import { parseSecretReference, PlatformSecretStore, ProviderStore, SecretNotFoundError } from '@svc/secrets';
import type { OidcSettingsRow } from '@svc/identity';

export const OIDC_CALLBACK_PATH = '/api/v1/sso/oidc/callback';
export const OIDC_LOGIN_PATH = '/api/v1/sso/oidc/login';
/** How long a login may take at the IdP. */
export const LOGIN_STATE_TTL_MS = 10 * 60_000;
const DISCOVERY_TTL_MS = 60 * 60_000;

// The settings row is @svc/identity's (sso-settings.ts, the writer of sso_settings).
export { readOidcSettings, writeOidcSettings, deleteOidcSettings, type OidcSettingsRow } from '@svc/identity';

/** http is allowed only on a loopback issuer (a local IdP, tests); anything else must be https. */
export function issuerProblem(issuerUrl: string): string | undefined {
  let u: URL;
  try {
    u = new URL(issuerUrl);
  } catch {
    return 'not a URL';
  }
  if (u.username || u.password || u.search || u.hash) return 'an issuer URL has no credentials, query or fragment';
  if (u.protocol === 'https:') return undefined;
  if (u.protocol === 'http:' && isLoopback(u.hostname)) return undefined;
  return 'must be https (http only on a loopback address)';
}

const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** The scope parameter: `openid` first, then the admin's scopes. */
export function scopeOf(s: Pick<OidcSettingsRow, 'scopes'>): string {
  return ['openid', ...s.scopes.filter((x) => x !== 'openid')].join(' ');
}

/** The value at a dotted path of the claims, as a list of strings. */
export function groupsOf(claims: Record<string, unknown>, path: string): string[] {
  let v: unknown = claims;
  if (path in claims) v = claims[path];
  else for (const part of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Why an ID token's claims may not sign in under the sign-up controls, as /login?sso_error= names it; undefined when they may. */
export function signUpRefusal(
  s: Pick<OidcSettingsRow, 'allowedEmailDomains' | 'googleHd' | 'entraTid'>,
  email: string,
  idClaims: Record<string, unknown>,
): { reason: 'domain_not_allowed' | 'hd_mismatch' | 'tid_mismatch'; message: string } | undefined {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (s.allowedEmailDomains.length && !s.allowedEmailDomains.includes(domain))
    return { reason: 'domain_not_allowed', message: `the email domain ${domain} is not one of allowed_email_domains` };
  // hd and tid are read from the ID token only (not userinfo): the claims the issuer signed.
  if (s.googleHd && idClaims.hd !== s.googleHd) return { reason: 'hd_mismatch', message: `the ID token's hd claim is ${JSON.stringify(idClaims.hd ?? null)}, not google_hd` };
  if (s.entraTid && idClaims.tid !== s.entraTid) return { reason: 'tid_mismatch', message: `the ID token's tid claim is ${JSON.stringify(idClaims.tid ?? null)}, not entra_tid` };
  return undefined;
}

export class OidcSettingsError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

interface Discovered {
  key: string;
  at: number;
  server: client.ServerMetadata;
  jwks?: client.ExportedJWKSCache;
}

/**
 * One per gateway: the discovered issuer and its cached keys, and the client
 * Configuration of a login (built per request: the client secret is resolved
 * from its secret reference each time, and the clock follows the gateway's).
 */
export class OidcClient {
  private discovered?: Discovered;

  constructor(private readonly deps: { pool: pg.Pool; masterKeys: readonly MasterKey[]; now: () => Date; publicUrl: string }) {}

  get redirectUri(): string {
    return this.deps.publicUrl + OIDC_CALLBACK_PATH;
  }

  /**
   * The client secret, from the platform secret the settings name.
   * A provider reference, which putOidcSettings no longer accepts, is read
   * from its provider as before, so settings saved before the upgrade keep
   * signing in until an admin moves the secret (docs/operating/sso.md).
   */
  async clientSecret(s: Pick<OidcSettingsRow, 'clientSecretSecret'>): Promise<string> {
    const ref = parseSecretReference(s.clientSecretSecret);
    if (ref.kind === 'builtin') return new PlatformSecretStore({ db: this.deps.pool, keys: this.deps.masterKeys }).read(ref.key);
    const value = await (await new ProviderStore({ db: this.deps.pool, keys: this.deps.masterKeys }).open(ref.provider)).get(ref.path, ref.field);
    if (value === undefined) throw new SecretNotFoundError(s.clientSecretSecret, [`provider:${ref.provider}`]);
    return value;
  }

  /** Reads the issuer's discovery document (now, or from the cache when it is under an hour old). */
  async server(s: Pick<OidcSettingsRow, 'issuerUrl' | 'clientId'>, fresh = false): Promise<client.ServerMetadata> {
    const key = `${s.issuerUrl}\n${s.clientId}`;
    const d = this.discovered;
    if (!fresh && d && d.key === key && Date.now() - d.at < DISCOVERY_TTL_MS) return d.server;
    const insecure = new URL(s.issuerUrl).protocol === 'http:';
    const config = await client.discovery(new URL(s.issuerUrl), s.clientId, undefined, client.None(), {
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
      timeout: 10,
    });
    const server = config.serverMetadata();
    // Saving the settings (fresh) reads the keys again too; an hourly re-discovery keeps them.
    this.discovered = { key, at: Date.now(), server, ...(!fresh && d && d.key === key && d.jwks ? { jwks: d.jwks } : {}) };
    return server;
  }

  /** A Configuration for one login, with the cached keys. */
  async configuration(s: OidcSettingsRow): Promise<client.Configuration> {
    const server = await this.server(s);
    const secret = await this.clientSecret(s);
    const skew = Math.round((this.deps.now().getTime() - Date.now()) / 1000);
    const config = new client.Configuration(server, s.clientId, { client_secret: secret, [client.clockSkew]: skew }, client.ClientSecretBasic(secret));
    if (new URL(s.issuerUrl).protocol === 'http:') client.allowInsecureRequests(config);
    config.timeout = 10;
    // Check the ID token's signature with the issuer's keys (openid-client otherwise trusts the token endpoint's TLS alone).
    client.enableNonRepudiationChecks(config);
    if (this.discovered?.jwks) client.setJwksCache(config, this.discovered.jwks);
    return config;
  }

  /** Keeps the keys a login fetched for the next one. */
  keepKeys(config: client.Configuration): void {
    const jwks = client.getJwksCache(config);
    if (jwks && this.discovered && this.discovered.server.issuer === config.serverMetadata().issuer) this.discovered.jwks = jwks;
  }

  forget(): void {
    this.discovered = undefined;
  }
}

/**
 * openid-client's passport strategy, with `state` and `nonce` on every
 * authorization request (the stock one adds state only without PKCE, and a
 * nonce only for implicit flows): the strategy stores both with the PKCE
 * verifier and checks them on the way back.
 */
export class SvcOidcStrategy extends Strategy {
  constructor(config: client.Configuration, opts: { callbackURL: string; scope: string }, verify: VerifyFunction) {
    super({ config, name: 'oidc', sessionKey: 'oidc', callbackURL: opts.callbackURL, scope: opts.scope }, verify);
  }

  override authorizationRequestParams<TOptions extends AuthenticateOptions>(req: Request, options: TOptions): URLSearchParams {
    const params = new URLSearchParams(super.authorizationRequestParams(req, options) as URLSearchParams);
    params.set('state', client.randomState());
    params.set('nonce', client.randomNonce());
    return params;
  }
}

export interface LoginState {
  code_verifier: string;
  state?: string;
  nonce?: string;
}
