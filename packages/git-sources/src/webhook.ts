// Push notifications of git hosts: which signature scheme a request uses and
// whether it verifies. Pure: the caller resolves the secret.
//   GitHub, Gitea, Forgejo: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`.
//   GitLab: `X-Gitlab-Token: <the secret itself>`.
// Comparisons are constant-time.
import crypto from 'node:crypto';

export type SignatureCheck = { ok: true; scheme: 'hub-signature-256' | 'gitlab-token' } | { ok: false; reason: string };

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export function hubSignature(secret: string, body: Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Verifies a push notification against the source's webhook secret. Header names are lower case (node's). */
export function verifyPushSignature(headers: Record<string, string | string[] | undefined>, body: Buffer, secret: string): SignatureCheck {
  if (!secret) return { ok: false, reason: 'the git source has no webhook secret' };
  const hub = header(headers, 'x-hub-signature-256');
  if (hub !== undefined) {
    const m = /^sha256=([0-9a-f]{64})$/i.exec(hub.trim());
    if (!m) return { ok: false, reason: 'X-Hub-Signature-256 is not sha256=<64 hex digits>' };
    const want = crypto.createHmac('sha256', secret).update(body).digest();
    return sameBytes(Buffer.from(m[1].toLowerCase(), 'hex'), want)
      ? { ok: true, scheme: 'hub-signature-256' }
      : { ok: false, reason: 'X-Hub-Signature-256 does not match the body' };
  }
  const gitlab = header(headers, 'x-gitlab-token');
  if (gitlab !== undefined) {
    // Digests first: equal lengths for timingSafeEqual, and no length leak.
    const digest = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest();
    return sameBytes(digest(gitlab), digest(secret)) ? { ok: true, scheme: 'gitlab-token' } : { ok: false, reason: 'X-Gitlab-Token does not match' };
  }
  return { ok: false, reason: 'no X-Hub-Signature-256 or X-Gitlab-Token header' };
}

/**
 * The branch a push notification is about (`ref: refs/heads/<branch>` in the
 * payloads of GitHub, GitLab and Gitea); undefined when the body names none
 * (then the sync is requested anyway: it costs one ls-remote at worst).
 */
export function pushedBranch(body: unknown): string | undefined {
  const ref = (body as { ref?: unknown } | null)?.ref;
  return typeof ref === 'string' && ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
}
