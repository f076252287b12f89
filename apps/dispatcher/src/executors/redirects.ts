// Redirects of http tasks, followed by hand. fetch's `redirect: 'follow'`
// keeps custom headers on a redirect to another origin, so an `X-Api-Key:
// {{ secret('k') }}` would reach whatever host a redirect names. Here a hop to
// another origin (scheme, host or port) keeps only the standard headers below;
// Authorization, Cookie, Proxy-Authorization and every other header are
// dropped, and stay dropped for the rest of the chain. Methods change as
// fetch changes them: 303 to GET (except HEAD), 301 and 302 after a POST to
// GET, each without the body and its content headers; 307 and 308 keep both.
//
// Every hop goes through the address guard (http-task-guard.ts): a literal
// address is checked here before the request, a name where it is resolved
// (the agent's lookup), so a redirect to a private address fails the task as
// the first request would.
import { isIP } from 'node:net';
import { urlHost } from '@svc/config';
import { addressesRefusal, RefusedTarget, type TargetPolicy } from '@svc/net-guard';
import { fetch, type Dispatcher, type Response } from 'undici';

/** Redirects followed before the task fails (`http_error`); fetch allows 20, an API needs far fewer. */
export const MAX_REDIRECTS = 10;

/** Headers kept on a hop to another origin: they describe the request, never a credential. */
const KEPT_ACROSS_ORIGINS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-encoding',
  'content-language',
  'content-type',
  'pragma',
  'user-agent',
]);

/** Headers that describe the body: dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = new Set(['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length']);

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface FollowInit {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
  /** The agent every hop connects through (its lookup refuses and pins names: http-task-guard.ts). */
  dispatcher: Dispatcher;
  /** The policy literal addresses are checked against before each hop. */
  policy: TargetPolicy;
}

/** Throws RefusedTarget when `url` names a literal address the policy refuses (names are judged by the agent's lookup). */
export function refuseLiteral(url: URL, policy: TargetPolicy): void {
  const host = urlHost(url);
  const family = isIP(host);
  if (!family) return;
  const refused = addressesRefusal(host, [{ address: host, family }], policy, true);
  if (refused) throw new RefusedTarget(refused);
}

/** fetch with redirects followed by hand (see above). The response of the last hop; a redirect without Location is returned as is. */
export async function fetchFollowing(start: string, init: FollowInit): Promise<Response> {
  let url = new URL(start);
  let { method, body } = init;
  let headers = { ...init.headers };
  for (let hops = 0; ; hops++) {
    refuseLiteral(url, init.policy);
    const res = await fetch(url, { method, headers, body, signal: init.signal, redirect: 'manual', dispatcher: init.dispatcher });
    const location = res.headers.get('location');
    if (!REDIRECT_STATUSES.has(res.status) || location === null) return res;
    await res.body?.cancel().catch(() => {});
    if (hops >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    const next = new URL(location, url);
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new Error(`redirect to a ${next.protocol} URL`);
    const upper = method.toUpperCase();
    if ((res.status === 303 && upper !== 'GET' && upper !== 'HEAD') || ((res.status === 301 || res.status === 302) && upper === 'POST')) {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !BODY_HEADERS.has(k.toLowerCase())));
    }
    if (next.origin !== url.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => KEPT_ACROSS_ORIGINS.has(k.toLowerCase())));
    url = next;
  }
}
