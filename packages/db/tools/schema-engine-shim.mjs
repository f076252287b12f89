#!/usr/bin/env node
// Stand-in for Prisma's native `schema-engine` binary (downloadable only from Prisma's own host).
// Speaks the CLI's stdio JSON-RPC, backed by @prisma/schema-engine-wasm + @prisma/adapter-pg.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';

// adapter-pg can't map pg_catalog types ("char" 18, name 19, ...) that the engine reads: report as text.
const addFields = pg.Result.prototype.addFields;
pg.Result.prototype.addFields = function (fields) {
  for (const f of fields) {
    if ([18, 19, 22, 24, 194, 2205, 2206].includes(f.dataTypeID)) f.dataTypeID = 25;
    else if ([1002, 1003].includes(f.dataTypeID)) f.dataTypeID = 1009;
  }
  return addFields.call(this, fields);
};
const log = (level, message, extra = {}) => process.stderr.write(JSON.stringify({ level, fields: { message, ...extra }, target: 'schema_engine::logger' }) + '\n');

const files = [];
let ds = {};
let cli = null;
for (let a = process.argv.slice(2), i = 0; i < a.length; i++) {
  if (a[i] === '--datamodels') files.push(a[++i]);
  else if (a[i] === '--datasource') ds = JSON.parse(a[++i]);
  else if (a[i] === 'cli') cli = a[++i];
  else if (a[i] === '--version') {
    console.log('schema-engine-shim 0.1.0');
    process.exit(0);
  } else if (a[i] === '--enabled-preview-features' || a[i] === '--extension-types') i++;
}

if (cli) {
  // `cli can-connect-to-database` | `cli create-database`
  log('INFO', 'schema-engine shim'); // the CLI ignores the first stderr line
  try {
    if (cli === 'can-connect-to-database') {
      const c = new pg.Client({ connectionString: ds.url });
      await c.connect();
      await c.end();
    } else if (cli === 'create-database') {
      const url = new URL(ds.url);
      const db = decodeURIComponent(url.pathname.slice(1));
      url.pathname = '/postgres';
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      if (!(await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount) await c.query(`CREATE DATABASE "${db.replace(/"/g, '""')}"`);
      await c.end();
    } else throw new Error(`unsupported: cli ${cli}`);
    process.exit(0);
  } catch (e) {
    log('ERROR', e.message, { error_code: e.code === '3D000' ? 'P1003' : 'P1001' });
    process.exit(1);
  }
}

let lastPanic = '';
globalThis.PRISMA_WASM_PANIC_REGISTRY = {
  set_message(m) {
    lastPanic = m;
    log('ERROR', 'PANIC: ' + m);
  },
};
const dir = path.dirname(createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
const glue = await import(path.join(dir, 'schema_engine_bg.js'));
const inst = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(path.join(dir, 'schema_engine_bg.wasm'))), { './schema_engine_bg.js': glue });
glue.__wbg_set_wasm(inst.exports);
inst.exports.__wbindgen_start?.();

// Discrete fields, not connectionString: connectToShadowDb() does new Pool({...config, database}).
const u = new URL(ds.url ?? 'postgresql://localhost/unused'); // `migrate diff` may pass no url
const factory = new PrismaPg({
  host: u.searchParams.get('host') ?? decodeURIComponent(u.hostname),
  port: Number(u.port || 5432),
  user: decodeURIComponent(u.username),
  password: decodeURIComponent(u.password),
  database: decodeURIComponent(u.pathname.slice(1)),
  idleTimeoutMillis: 500,
  allowExitOnIdle: true,
});
if (ds.shadowDatabaseUrl) factory.connectToShadowDb = () => new PrismaPg({ connectionString: ds.shadowDatabaseUrl }).connect();
const datamodels = files.map((f) => [f, fs.readFileSync(f, 'utf8')]);
if (!datamodels.length) datamodels.push(['stub.prisma', 'datasource db {\n  provider = "postgresql"\n}\n']); // empty list panics
const engine = await glue.SchemaEngine.new({ datamodels }, (l) => process.stderr.write(String(l) + '\n'), bindMigrationAwareSqlAdapterFactory(factory));

const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
readline
  .createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on('line', async (line) => {
    const req = line.trim() && JSON.parse(line);
    if (!req || req.id === undefined || !req.method) return; // blank line, or the CLI's ack of our `print`
    const name = req.method === 'getDatabaseVersion' ? 'version' : req.method;
    try {
      if (typeof engine[name] !== 'function') throw new Error(`Unknown method ${req.method}`);
      let result = await engine[name](req.params ?? {});
      if (name === 'diff' && typeof result?.stdout === 'string') {
        // native engine prints via a `print` request
        const { stdout, ...rest } = result;
        result = rest;
        if (stdout) out({ jsonrpc: '2.0', id: `print-${req.id}`, method: 'print', params: { content: stdout.replace(/\n$/, '') } });
      }
      out({ jsonrpc: '2.0', id: req.id, result: result ?? null });
    } catch (e) {
      const panic = e instanceof WebAssembly.RuntimeError;
      out({
        jsonrpc: '2.0',
        id: req.id,
        error: {
          code: 4466,
          message: 'An error happened. Check the data field for details.',
          data: { is_panic: panic, message: panic && lastPanic ? lastPanic : e.message, error_code: e.code, meta: e.meta ?? null },
        },
      });
    }
  })
  .on('close', () => {
    try {
      engine.free();
    } catch {}
    process.exit(0);
  });
