// Credentials as random strings, stored only as SHA-256 hashes: a database
// leak yields no usable token or session.
import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `n` base62 characters from the CSPRNG, without modulo bias (rejection sampling). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of crypto.randomBytes(n * 2)) {
      if (b < 248) out += BASE62[b % 62]; // 248 = 4 * 62: keep bytes that map evenly
      if (out.length === n) break;
    }
  }
  return out;
}

export const API_TOKEN_PREFIX = 'svc_';
export const API_TOKEN_PATTERN = /^svc_[0-9A-Za-z]{43}$/;

export function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/** A new API token: `svc_` and 43 base62 characters; `prefix` (the first 8 characters after `svc_`) helps people tell tokens apart. */
export function generateApiToken(): { secret: string; hash: string; prefix: string } {
  const secret = API_TOKEN_PREFIX + randomBase62(43);
  return { secret, hash: sha256(secret), prefix: secret.slice(0, 12) };
}

/** A new session token for the `svc_session` cookie (256 bits). */
export function generateSessionToken(): { token: string; hash: string } {
  const token = crypto.randomBytes(32).toString('base64url');
  return { token, hash: sha256(token) };
}

export const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
