// Against server-side request forgery: a webhook or Slack channel's URL is
// chosen by an editor, and the maintenance process sends from inside the
// deployment's network. Unless SVC_ALERT_ALLOW_PRIVATE_TARGETS, the host is
// resolved once, every address it resolves to must be public (@svc/config
// nonPublicAddressKind), and the request connects to that checked address
// (its own `lookup`, so no second DNS answer can differ), keeping the URL's
// host for the Host header and TLS server name. Redirects are never followed.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { nonPublicAddressKind, urlHost } from '@svc/config';

/** All addresses of a host name (a test maps its own names). */
export type Resolve = (host: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** The target is refused for good: retrying does not help. */
export class RefusedTarget extends Error {}

/**
 * The address to connect to for `url`: its literal address, or the first one
 * its host resolves to. Throws RefusedTarget for a URL that is not http(s),
 * or, unless `allowPrivate`, when any of the addresses is not public.
 */
export async function checkedAddress(url: URL, o: { allowPrivate: boolean; resolve: Resolve }): Promise<LookupAddress> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedTarget(`${url.protocol} URLs are not sent to: http or https only`);
  const host = urlHost(url);
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await o.resolve(host);
  const first = addresses[0];
  if (!first) throw new Error(`host ${host} resolves to no address`);
  if (!o.allowPrivate) {
    for (const a of addresses) {
      const kind = nonPublicAddressKind(a.address);
      if (kind) throw new RefusedTarget(`address ${a.address}${family ? '' : ` (of ${host})`} is ${kind}: refused (SVC_ALERT_ALLOW_PRIVATE_TARGETS)`);
    }
  }
  return first;
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
