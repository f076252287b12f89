// A dry run changes nothing anywhere. Every command with a
// --dry-run option is run as a subprocess against a real stack, through a
// proxy that records each request: with --dry-run it sends no request that
// writes, the server state it would change reads the same afterwards through
// the API, no local file changes, and its output says what it would do. The
// same command without --dry-run then goes through the same checks and must be
// caught by them, so none of them passes for want of looking.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import type { Command } from 'commander';
import type { components } from '@svc/api-spec';
import { cliMain, startStack, svc, tempHome, writeTree, type Stack, type SvcResult } from './support.js';

let s: Stack;
let proxy: Proxy;
let env: Record<string, string>;
const home = tempHome();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dry-run-'));

before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  proxy = await recordingProxy(s.url);
  env = { ...home.env, SVC_URL: proxy.url, SVC_TOKEN: s.token };
});
after(async () => {
  await proxy?.close();
  await s?.stop();
  home.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Proxy {
  url: string;
  /** `METHOD /path?query` of every request since the last reset. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of `target` that records the method and path of each
 * request it forwards, marked ` (dry_run)` when its JSON body says `dry_run: true`.
 */
async function recordingProxy(target: string): Promise<Proxy> {
  const upstream = new URL(target);
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let dryRun = false;
      try {
        dryRun = (JSON.parse(body.toString('utf8')) as { dry_run?: unknown }).dry_run === true;
      } catch {
        // not JSON
      }
      requests.push(`${req.method} ${req.url}${dryRun ? ' (dry_run)' : ''}`);
      const fwd = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      fwd.on('error', (err) => res.writeHead(502).end(String(err)));
      fwd.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Requests that change nothing: reads, the POSTs the spec defines as
 * read-only checks (validateFile), a backfill's preview (createBackfill
 * with dry_run, which stores nothing: the state probe checks it) and a batch
 * trigger's check (triggerFlowBatch with dry_run). A dry run
 * may send these and no others.
 */
const READ_ONLY = [
  /^(GET|HEAD) /,
  /^POST \/api\/v1\/namespaces\/[^/?]+\/validate(\?|$)/,
  /^POST \/api\/v1\/flows\/[^/?]+\/[^/?]+\/backfills \(dry_run\)$/,
  // A bulk action's count and a replay's plan: the dry runs of bulkExecutions and replayExecution store nothing (the state probes check it).
  /^POST \/api\/v1\/executions\/bulk \(dry_run\)$/,
  /^POST \/api\/v1\/executions\/[^/?]+\/replay \(dry_run\)$/,
  // A batch trigger's check: triggerFlowBatch with dry_run creates nothing (the state probe checks it).
  /^POST \/api\/v1\/flows\/[^/?]+\/[^/?]+\/executions\/batch \(dry_run\)$/,
];

/** Every file and directory under `dirs`, with its mode, mtime and content hash. */
function snapshot(dirs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const st = fs.lstatSync(p);
      if (e.isDirectory()) {
        out[`${p}/`] = st.mode.toString(8);
        walk(p);
      } else {
        out[p] = `${st.mode.toString(8)} ${st.mtimeMs} ${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')}`;
      }
    }
  };
  for (const d of dirs) walk(d);
  return out;
}

/** What `svc ns push` changes on the server: whether the namespace exists, its head version and files. */
async function namespaceState(ns: string): Promise<unknown> {
  const n = await s.api('GET', `/api/v1/namespaces/${ns}`);
  if (n.status === 404) return { exists: false };
  assert.equal(n.status, 200, JSON.stringify(n.body));
  const f = await s.api('GET', `/api/v1/namespaces/${ns}/files?limit=200`);
  return { exists: true, head_version: n.body.head_version, files: f.body.items.map((x: any) => `${x.path} ${x.sha256} ${x.executable}`) };
}

interface Observed {
  r: SvcResult;
  /** The requests that were not read-only. */
  writes: string[];
  state: { before: unknown; after: unknown };
  files: { before: Record<string, string>; after: Record<string, string> };
}

/** Runs the CLI in `work` and records what it sent, the server state around it, and the local files around it. */
async function observe(args: string[], state: () => Promise<unknown>): Promise<Observed> {
  const stateBefore = await state();
  const filesBefore = snapshot([work, home.dir]);
  proxy.requests.length = 0;
  const r = await svc(args, { env, cwd: work });
  const writes = proxy.requests.filter((q) => !READ_ONLY.some((re) => re.test(q)));
  return { r, writes, state: { before: stateBefore, after: await state() }, files: { before: filesBefore, after: snapshot([work, home.dir]) } };
}

const FLOW = 'id: hello\ntasks:\n  - id: greet\n    type: script\n    file: scripts/greet.sh\n';

test('ns push --create --dry-run to a namespace that does not exist creates nothing and says what it would create', async () => {
  const dir = path.join(work, 'new-namespace');
  writeTree(dir, { 'hello.flow.yaml': FLOW, 'scripts/greet.sh*': '#!/bin/sh\necho hello\n' });
  assert.equal((await s.api('GET', '/api/v1/namespaces/dry.fresh')).status, 404, 'the namespace does not exist before');

  const o = await observe(['ns', 'push', dir, '--namespace', 'dry.fresh', '--create', '--dry-run'], () => namespaceState('dry.fresh'));
  assert.equal((await s.api('GET', '/api/v1/namespaces/dry.fresh')).status, 404, 'the namespace still does not exist');
  const list = await s.api('GET', '/api/v1/namespaces?limit=200');
  assert.ok(!list.body.items.some((n: any) => n.name === 'dry.fresh'), 'nor is it listed');
  assert.deepEqual(o.writes, [], 'no request that writes was sent');
  assert.deepEqual(o.files.after, o.files.before, 'no local file changed');

  assert.equal(o.r.code, 0, o.r.stderr);
  assert.equal(o.r.stdout, '+ hello.flow.yaml\n+ scripts/greet.sh\n', 'the files it would push');
  assert.match(o.r.stderr, /would create namespace dry\.fresh/);
  assert.match(o.r.stderr, /nothing created/);
  assert.doesNotMatch(o.r.stderr, /^created namespace/m);
});

/** One dry run of one command, in the state it starts from. */
interface DryRun {
  /** The command path (as in `svc ns push`, without `svc`) whose --dry-run this runs. */
  command: string;
  name: string;
  /** Puts the server and `dir` in the state the run starts from. */
  setup(dir: string): Promise<void>;
  /** The arguments, --dry-run among them. */
  args(dir: string): string[];
  /** The server state the command changes without --dry-run, read through the API. */
  state(): Promise<unknown>;
  /** What the dry run's output must say it would do. */
  says(r: SvcResult): void;
}

/** A namespace with the hello flow and `n` of its executions, cancelled when `cancel` (ended, as rerun, restart and replay need). */
async function executionsOf(ns: string, n: number, cancel: boolean): Promise<string[]> {
  await s.saveFlow(ns, { 'hello.flow.yaml': FLOW, 'scripts/greet.sh': '#!/bin/sh\necho hello\n' }, ['scripts/greet.sh']);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = await s.api('POST', `/api/v1/flows/${ns}/hello/executions`, {});
    assert.equal(e.status, 201, JSON.stringify(e.body));
    if (cancel) {
      const c = await s.api('POST', `/api/v1/executions/${e.body.id}/cancel`, {});
      assert.ok(c.status < 300, JSON.stringify(c.body));
    }
    ids.push(e.body.id as string);
  }
  if (cancel) {
    for (const id of ids) {
      for (let t = 0; ; t++) {
        if ((await s.api('GET', `/api/v1/executions/${id}`)).body.state === 'CANCELLED') break;
        assert.ok(t < 100, `execution ${id} did not end CANCELLED`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
  return ids;
}

/** What a bulk action or a replay changes: the executions of `ns` and their states. */
async function executionsState(ns: string): Promise<string[]> {
  const r = await s.api('GET', `/api/v1/executions?namespace=${ns}&limit=200`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.items as components['schemas']['Execution'][]).map((e) => `${e.id} ${e.state}`).sort();
}

let replayed = '';

const CASES: DryRun[] = [
  ...(['cancel', 'rerun', 'restart'] as const).map((action): DryRun => ({
    command: `executions bulk ${action}`,
    name: `executions bulk ${action} of a namespace's executions`,
    setup: async () => {
      await executionsOf(`dry.bulk-${action}`, 2, action !== 'cancel');
    },
    args: () => ['executions', 'bulk', action, '--namespace', `dry.bulk-${action}`, '--yes', '--dry-run'],
    state: () => executionsState(`dry.bulk-${action}`),
    says: (r) => {
      assert.match(r.stderr, new RegExp(`^2 execution\\(s\\) match; 2 would be ${action === 'cancel' ? 'cancelled' : action === 'rerun' ? 'rerun' : 'restarted'}$`, 'm'));
    },
  })),
  {
    command: 'executions replay',
    name: 'executions replay of a cancelled execution',
    setup: async () => {
      [replayed] = await executionsOf('dry.replay', 1, true);
    },
    args: () => ['executions', 'replay', replayed, '--dry-run'],
    state: () => executionsState('dry.replay'),
    says: (r) => {
      assert.match(r.stdout, new RegExp(`^replay of ${replayed} on the pinned revision`));
      assert.match(r.stdout, /^ {2}run {4}greet$/m);
    },
  },
  {
    command: 'ns push',
    name: 'ns push --create -o json, to a namespace that does not exist',
    setup: async (dir) => writeTree(dir, { 'hello.flow.yaml': FLOW, 'scripts/greet.sh*': '#!/bin/sh\necho hello\n' }),
    args: (dir) => ['ns', 'push', dir, '-n', 'dry.json', '--create', '--dry-run', '-o', 'json'],
    state: () => namespaceState('dry.json'),
    says: (r) => {
      const out = JSON.parse(r.stdout);
      assert.equal(out.dry_run, true);
      assert.equal(out.new_namespace, true, 'it says it would create the namespace');
      assert.deepEqual(out.changes, [
        { op: 'put', path: 'hello.flow.yaml', kind: 'added' },
        { op: 'put', path: 'scripts/greet.sh', kind: 'added' },
      ]);
      assert.match(r.stderr, /would create namespace dry\.json/);
    },
  },
  {
    command: 'ns push',
    name: 'ns push --create of an empty directory, to a namespace that does not exist',
    setup: async (dir) => void fs.mkdirSync(dir, { recursive: true }),
    args: (dir) => ['ns', 'push', dir, '-n', 'dry.empty', '--create', '--dry-run'],
    state: () => namespaceState('dry.empty'),
    says: (r) => {
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /would create namespace dry\.empty/);
    },
  },
  {
    command: 'ns push',
    name: 'ns push to a namespace that exists, with a change, a new file and a deleted one',
    setup: async (dir) => {
      await s.saveFlow('dry.existing', { 'hello.flow.yaml': FLOW, 'scripts/greet.sh': '#!/bin/sh\necho hello\n', 'old.txt': 'old\n' }, ['scripts/greet.sh']);
      writeTree(dir, { 'hello.flow.yaml': `${FLOW}description: changed\n`, 'scripts/greet.sh*': '#!/bin/sh\necho hello\n', 'new.txt': 'new\n' });
    },
    args: (dir) => ['ns', 'push', dir, '-n', 'dry.existing', '--create', '--dry-run'],
    state: () => namespaceState('dry.existing'),
    says: (r) => {
      assert.deepEqual(r.stdout.trim().split('\n').sort(), ['+ new.txt', '- old.txt', '~ hello.flow.yaml']);
      assert.match(r.stderr, /dry run: 3 change\(s\) against dry\.existing version 1, nothing saved/);
      assert.doesNotMatch(r.stderr, /would create/);
    },
  },
  {
    command: 'run',
    name: 'run --batch of three input sets',
    setup: async (dir) => {
      await s.saveFlow('dry.batch', { 'hello.flow.yaml': FLOW, 'scripts/greet.sh': '#!/bin/sh\necho hello\n' }, ['scripts/greet.sh']);
      writeTree(dir, { 'items.ndjson': '{"labels": {"n": "1"}}\n{"labels": {"n": "2"}}\n{"labels": {"n": "3"}}\n' });
    },
    args: (dir) => ['run', 'dry.batch/hello', '--batch', path.join(dir, 'items.ndjson'), '--dry-run'],
    state: () => executionsState('dry.batch'),
    says: (r) => {
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^dry run: 3 item\(s\) checked against dry\.batch\/hello; nothing created$/m);
    },
  },
  {
    command: 'flow backfill',
    name: 'flow backfill of a nightly schedule over a past week',
    setup: async () => {
      await s.saveFlow(
        'dry.backfill',
        {
          'nightly.flow.yaml': `${FLOW.replace('id: hello', 'id: nightly')}triggers:\n  - id: every-night\n    type: schedule\n    cron: "0 2 * * *"\n    timezone: Europe/Berlin\n`,
          'scripts/greet.sh': '#!/bin/sh\necho hello\n',
        },
        ['scripts/greet.sh'],
      );
    },
    args: () => ['flow', 'backfill', 'dry.backfill/nightly', '--from', '2026-01-05', '--to', '2026-01-11T23:59:59Z', '--dry-run'],
    state: async () => {
      const r = await s.api('GET', '/api/v1/flows/dry.backfill/nightly/backfills');
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body.items as components['schemas']['Backfill'][]).map((b) => `${b.id} ${b.state}`);
    },
    says: (r) => {
      const lines = r.stdout.trim().split('\n');
      assert.match(lines[0]!, /^7 fire time\(s\) of every-night \(0 2 \* \* \*, Europe\/Berlin\); dry run, nothing created$/);
      // 02:00 in Berlin in winter is 01:00 UTC.
      assert.match(lines[1]!, /^2026-01-05T01:00:00(\.000)?Z /);
      assert.match(lines[7]!, /^2026-01-11T01:00:00(\.000)?Z /);
    },
  },
];

test('every command with a --dry-run option has a case below, and its --help says a dry run changes nothing', async () => {
  const { buildProgram, App } = await import(pathToFileURL(path.join(path.dirname(cliMain), 'index.js')).href);
  const quiet = { write: () => true };
  const program: Command = buildProgram(new App({ stdout: quiet, stderr: quiet, env: {}, cwd: '.' }));
  const found: string[] = [];
  const walk = (c: Command, prefix: string[]) => {
    for (const sub of c.commands) {
      const p = [...prefix, sub.name()];
      if (sub.options.some((o) => o.long === '--dry-run')) found.push(p.join(' '));
      walk(sub, p);
    }
  };
  walk(program, []);
  assert.ok(found.length > 0, 'the walk finds commands (ns push has --dry-run)');
  assert.deepEqual(found.sort(), [...new Set(CASES.map((c) => c.command))].sort());
  for (const command of found) {
    const help = await svc([...command.split(' '), '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout.replace(/\s+/g, ' '), /A dry run changes nothing anywhere/, `svc ${command} --help`);
  }
});

for (const [i, c] of CASES.entries()) {
  test(`${c.name}: --dry-run changes nothing and says what it would do; the same checks catch the run without it`, async () => {
    const dir = path.join(work, `case-${i}`);
    await c.setup(dir);

    const dry = await observe(c.args(dir), c.state);
    assert.equal(dry.r.code, 0, dry.r.stderr);
    assert.deepEqual(dry.writes, [], 'no request that writes was sent');
    assert.deepEqual(dry.state.after, dry.state.before, 'the server state is as it was');
    assert.deepEqual(dry.files.after, dry.files.before, 'no local file changed');
    c.says(dry.r);

    const real = await observe(
      c.args(dir).filter((a) => a !== '--dry-run'),
      c.state,
    );
    assert.equal(real.r.code, 0, real.r.stderr);
    assert.notDeepEqual(real.writes, [], 'without --dry-run it writes, and the request check sees it');
    assert.notDeepEqual(real.state.after, real.state.before, 'without --dry-run the state probe sees the change');
  });
}
