// Against server-side request forgery: an alert channel's URL and an http
// task's URL are chosen by an editor, and maintenance and the dispatcher send
// from inside the deployment's network, beside PostgreSQL and the object
// store. Unless the operator allows private targets, the host is resolved
// once, every address it resolves to must be public (@svc/config
// nonPublicAddressKind) or listed by the operator, and the request connects
// to that checked address (its own `lookup`, so no second DNS answer can
// differ), keeping the URL's host for the Host header and TLS server name.
// Alerts never follow a redirect; http tasks check each hop the same way.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressListed, hostListed, nonPublicAddressKind, type TargetAllowlist, urlHost } from '@svc/config';

/** All addresses of a host name (a test maps its own names). */
export type Resolve = (host: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** The target is refused for good: retrying does not help. */
export class RefusedTarget extends Error {
  override readonly name = 'RefusedTarget';
}

/** What a guarded request may reach. */
export interface TargetPolicy {
  /** Every address, public or not (SVC_ALERT_ALLOW_PRIVATE_TARGETS, SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS). */
  allowPrivate: boolean;
  /** Non-public hosts and ranges allowed all the same (SVC_HTTP_TASK_ALLOWED_HOSTS); default none. */
  allowed?: TargetAllowlist;
  /** The settings a refusal names, telling the operator what would allow it; default `SVC_ALERT_ALLOW_PRIVATE_TARGETS`. */
  setting?: string;
}

/**
 * Why the addresses of `host` are refused, or null: a non-public one that
 * the policy neither allows nor lists. `literal`: the host is the address.
 */
export function addressesRefusal(host: string, addresses: readonly LookupAddress[], p: TargetPolicy, literal = isIP(host) !== 0): string | null {
  if (p.allowPrivate || (p.allowed && hostListed(p.allowed, host))) return null;
  for (const a of addresses) {
    const kind = nonPublicAddressKind(a.address);
    if (kind && !(p.allowed && addressListed(p.allowed, a.address))) {
      return `address ${a.address}${literal ? '' : ` (of ${host})`} is ${kind}: refused (${p.setting ?? 'SVC_ALERT_ALLOW_PRIVATE_TARGETS'})`;
    }
  }
  return null;
}

/**
 * The address to connect to for `url`: its literal address, or the first one
 * its host resolves to. Throws RefusedTarget for a URL that is not http(s),
 * or, unless the policy allows it, when any of the addresses is not public.
 */
export async function checkedAddress(url: URL, o: TargetPolicy & { resolve: Resolve }): Promise<LookupAddress> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedTarget(`${url.protocol} URLs are not sent to: http or https only`);
  const host = urlHost(url);
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await o.resolve(host);
  const first = addresses[0];
  if (!first) throw new Error(`host ${host} resolves to no address`);
  const refused = addressesRefusal(host, addresses, o, family !== 0);
  if (refused) throw new RefusedTarget(refused);
  return first;
}

/**
 * A `lookup` for net.connect and tls.connect (and so for an HTTP agent's
 * connections) that resolves the host once, refuses it as checkedAddress
 * does (the error is a RefusedTarget), and answers with the first checked
 * address only: the connection goes where the check looked. A literal
 * address never reaches a lookup: check it with checkedAddress first.
 */
export function guardedLookup(p: TargetPolicy, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    resolve(host).then(
      (addresses) => {
        const first = addresses[0];
        if (!first) return callback(Object.assign(new Error(`host ${host} resolves to no address`), { code: 'ENOTFOUND' }), '', 0);
        const refused = addressesRefusal(host, addresses, p, false);
        if (refused) return callback(new RefusedTarget(refused), '', 0);
        if (options.all) (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, [first]);
        else callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** The answer of a POST: its status, its Location, and the start of its body. */
export interface PostAnswer {
  status: number;
  location: string | undefined;
  text: string;
}

/** POSTs `body` to `url`, connecting to `at` only (no DNS lookup of its own), and reads at most `keep` characters of the answer. */
export function postTo(url: URL, at: LookupAddress, body: string, headers: Record<string, string>, timeoutMs: number, keep = 500): Promise<PostAnswer> {
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [at]);
    else callback(null, at.address, at.family);
  };
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<PostAnswer>((resolve, reject) => {
    const req = send(
      url,
      { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, lookup, signal: AbortSignal.timeout(timeoutMs), agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < keep) text += chunk.slice(0, keep - text.length);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
