/** The landing page served at `/` until the web UI lands: what runs and where to look. */
export function renderHome(opts: { version: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#f2f2f2;padding:.1rem .3rem}</style>
</head><body>
<h1>svc</h1>
<p>Workflow orchestration service, version <code>${opts.version.replace(/[<>&"]/g, '')}</code>.</p>
<ul>
<li><a href="/readyz">/readyz</a>: readiness of the database, migrations, object store and master keys</li>
<li><a href="/metrics">/metrics</a>: Prometheus metrics</li>
<li><a href="/api/v1/schemas/flow.json">/api/v1/schemas/flow.json</a>: the JSON Schema of <code>*.flow.yaml</code> files</li>
</ul>
<p>The API lives under <code>/api/v1</code>; <code>npm run svc -- openapi</code> prints its OpenAPI document.</p>
</body></html>`;
}
