// The web UI (apps/web, built by Vite into apps/web/dist) served at `/`.
// Hashed files under assets/ never change, so they are cached for a year;
// index.html is revalidated every time, so a new build is picked up at once.
// Any GET that is not an API, hook, MCP, health or metrics path gets
// index.html: the UI routes on the client. When the UI was not built the
// gateway still starts, and `/` says so. Every response here carries the
// UI's Content-Security-Policy (security-headers.ts), with a fresh nonce for
// inline <style> elements that index.html carries in `<meta name="csp-nonce">`.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type Router } from 'express';
import { uiCsp } from './security-headers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * Where the UI is, seen from dist/ui.js: in the monorepo, where its build puts
 * it (apps/web/dist); in the api-gateway image, /app/web (infra/deploy-app.sh
 * copies it there). The first that holds an index.html, else the monorepo's.
 */
export const DEFAULT_UI_DIR =
  [path.resolve(here, '../../web/dist'), path.resolve(here, '../web')].find((d) => fs.existsSync(path.join(d, 'index.html'))) ?? path.resolve(here, '../../web/dist');

/** Path prefixes that never fall back to the UI's index.html. */
const NOT_UI = ['/api', '/hooks', '/mcp', '/healthz', '/readyz', '/metrics', '/.well-known'];

const isNotUi = (p: string) => NOT_UI.some((x) => p === x || p.startsWith(`${x}/`));

/** The page served at `/` when the UI was not built: what runs and where to look. */
export function renderHome(opts: { version: string; uiDir: string; nonce?: string }): string {
  const esc = (s: string) => s.replace(/[<>&"]/g, '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc</title>
<style nonce="${esc(opts.nonce ?? '')}">body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#f2f2f2;padding:.1rem .3rem}</style>
</head><body>
<h1>svc</h1>
<p>Workflow orchestration service, version <code>${esc(opts.version)}</code>.</p>
<p><strong>The web UI was not built</strong>: no <code>${esc(opts.uiDir)}/index.html</code>. Run <code>npm run build</code> (or <code>npm start</code>) at the repository root, then reload.</p>
<ul>
<li><a href="/readyz">/readyz</a>: readiness of the database, migrations, object store and master keys</li>
<li><a href="/metrics">/metrics</a>: Prometheus metrics</li>
<li><a href="/api/v1/schemas/flow.json">/api/v1/schemas/flow.json</a>: the JSON Schema of <code>*.flow.yaml</code> files</li>
</ul>
<p>The API lives under <code>/api/v1</code>; <code>npm run svc -- openapi</code> prints its OpenAPI document.</p>
</body></html>`;
}

/**
 * The UI's routes. index.html is read on each request (cheap, and a rebuild
 * while the gateway runs is served without a restart); whether it exists
 * decides between the UI and the landing page. Requests served here are
 * labelled `/*` in the metrics; a missing file falls through to `unmatched`.
 */
export function uiRouter(opts: { uiDir: string; version: string }): Router {
  const r = express.Router();
  const index = path.join(opts.uiDir, 'index.html');
  const label = (res: { locals?: Record<string, unknown> }) => {
    if (res.locals) res.locals.route = '/*';
  };
  r.use((req, _res, next) => (isNotUi(req.path) ? next('router') : next()));
  r.use((_req, res, next) => {
    res.locals.cspNonce = crypto.randomBytes(16).toString('base64');
    next();
  });
  r.use(uiCsp());
  r.use('/assets', express.static(path.join(opts.uiDir, 'assets'), { immutable: true, maxAge: '365d', index: false, setHeaders: label }));
  // Other files at the root of dist (a favicon, say): a short cache.
  r.use(express.static(opts.uiDir, { index: false, maxAge: '1h', setHeaders: label }));
  r.get(['/', '/*splat'], (req: Request, res: Response, next) => {
    // A missing asset, or a path that looks like a file (a dot in its last
    // segment) asked for by anything but a browser navigation, is not a client
    // route. Client routes may carry dots (namespace names: /editor/team.etl).
    const looksLikeFile = path.extname(req.path) !== '' && !(req.headers.accept ?? '').includes('text/html');
    if (req.path.startsWith('/assets/') || looksLikeFile) return next();
    label(res);
    res.setHeader('Cache-Control', 'no-cache');
    const nonce = String(res.locals.cspNonce);
    fs.readFile(index, 'utf8', (err, html) => {
      if (err) res.type('html').send(renderHome({ ...opts, nonce }));
      else res.type('html').send(html.replace(/<head>/i, `<head><meta name="csp-nonce" content="${nonce}">`));
    });
  });
  return r;
}
