// Browser security headers and response compression for every response of
// the gateway (helmet and compression).
//
// Content-Security-Policy comes in two strengths. API, hook and MCP responses
// are data, never a page: `default-src 'none'; frame-ancestors 'none'`, so a
// JSON or text response opened in a browser runs and loads nothing. The web
// UI (ui.ts) gets UI_CSP: its own scripts, styles, images and API only; no
// inline script (the theme script before the first paint is a file,
// apps/web/public/theme.js), no plugins, no framing, no foreign form
// targets. Inline <style> elements need the response's nonce: CodeMirror
// (style-mod) injects its theme as one, and the UI hands it the nonce that
// ui.ts writes into index.html (`<meta name="csp-nonce">`). Inline style
// *attributes* are allowed (style-src-attr): CodeMirror sets some with
// setAttribute (the content's `tab-size`), and an attribute cannot run script.
//
// The other headers are helmet's defaults, except: X-Frame-Options DENY (as
// frame-ancestors 'none', for old browsers) and no Strict-Transport-Security:
// TLS ends at the proxy in front of the gateway (docs/hardening.md), which
// knows whether the whole host is HTTPS and sets HSTS there.
//
// Compression: gzip (or deflate, br as the client accepts) for text above
// 1 KiB (text/*, JSON, JavaScript, XML, SVG), never for text/event-stream:
// an event stream must reach the client as each event is written, and
// compression buffers. Other types (artifacts, octet streams, images) go as
// stored, with their Content-Length: they are often compressed already.
import type { IncomingMessage, ServerResponse } from 'node:http';
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

type Directives = Record<string, (string | ((req: IncomingMessage, res: ServerResponse) => string))[]>;

/** The nonce of this response's inline <style> elements, set by ui.ts in res.locals.cspNonce. */
const styleNonce = (_req: IncomingMessage, res: ServerResponse) => `'nonce-${String((res as Response).locals?.cspNonce ?? '')}'`;

/** The web UI's Content-Security-Policy (its HTML and static files). */
export const UI_CSP: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", styleNonce],
  'style-src-attr': ["'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'frame-ancestors': ["'none'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
};

/** Everything else (API JSON, downloads, hooks, MCP, metrics): no page, nothing to load. */
export const DATA_CSP: Directives = {
  'default-src': ["'none'"],
  'frame-ancestors': ["'none'"],
};

const csp = (directives: Directives) => helmet.contentSecurityPolicy({ useDefaults: false, directives });

/** helmet with DATA_CSP; the UI router replaces the policy with uiCsp(). */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: DATA_CSP },
    frameguard: { action: 'deny' },
    strictTransportSecurity: false,
  });
}

/** The UI's policy, set over DATA_CSP on the UI's responses. */
export const uiCsp = (): RequestHandler => csp(UI_CSP);

/** Text types worth compressing; text/event-stream is excluded before this is asked. */
const TEXT = /^(?:text\/[^;]+|application\/(?:json|[^;]+\+json|javascript|xml|[^;]+\+xml)|image\/svg\+xml)\s*(?:;|$)/i;

/** Whether a response may be compressed: text only, never an event stream. */
export function compressible(req: Request, res: Response): boolean {
  const type = String(res.getHeader('Content-Type') ?? '').toLowerCase();
  if (type.startsWith('text/event-stream') || !TEXT.test(type)) return false;
  return compression.filter(req, res);
}

export function compressResponses(): RequestHandler {
  return compression({ filter: compressible });
}
