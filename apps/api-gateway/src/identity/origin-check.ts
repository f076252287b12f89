// The Origin check of cookie requests (spec "Origin check"): a cookie request
// with a method other than GET, HEAD, OPTIONS passes when at least one holds:
//   1. Origin is the origin of SVC_PUBLIC_URL;
//   2. the host of Origin is the host of the request;
//   3. there is no Origin and Sec-Fetch-Site is same-origin.
// Everything else (Origin: null, neither header, another site) is refused.
import type { Request } from 'express';

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function originAllowed(req: Request, publicUrl: string): boolean {
  if (SAFE_METHODS.has(req.method)) return true;
  const origin = req.headers.origin;
  if (origin === undefined) return req.headers['sec-fetch-site'] === 'same-origin';
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // `null` and anything that is no URL
  }
  if (parsed.origin === 'null') return false;
  if (parsed.origin === new URL(publicUrl).origin) return true;
  const host = req.headers.host;
  return host !== undefined && parsed.host.toLowerCase() === host.toLowerCase();
}
