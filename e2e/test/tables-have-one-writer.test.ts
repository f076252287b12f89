// One owner per table: every table of prisma/schema.prisma is owned by exactly
// one workspace package, which declares it in its package.json
// (`"svc": { "ownsTables": [...] }`), and only the owner writes it; every
// other package calls the owner's functions. The engine's tables are read
// outside packages/engine only through `@svc/engine/read-models`.
// Checked statically over the sources of apps/*/src and packages/*/src (tests
// and generated code left out): the SQL text of INSERT INTO / UPDATE /
// DELETE FROM <table> and of FROM / JOIN <table>, and Prisma writes and reads
// (`.<model>.create|update|…`, `.<model>.find…|count|…`, or a model's delegate
// taken into a variable, which hides its calls from the scan).
// docs/architecture/overview.md lists the owners and the exceptions below.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXECUTION_CHILD_TABLES } from '@svc/engine/internal';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Table (SQL name) → Prisma model (its delegate's name), from the schema. */
function schemaTables(): Map<string, string> {
  const text = fs.readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8');
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^model (\w+) \{[\s\S]*?^\}/gm)) {
    const table = /@@map\("(\w+)"\)/.exec(m[0])?.[1];
    if (table) out.set(table, m[1][0].toLowerCase() + m[1].slice(1));
  }
  return out;
}

interface Owner {
  /** The package's name (@svc/x). */
  name: string;
  /** Where its writes live: `packages/x/src/`. */
  dir: string;
  tables: string[];
}

/** The owners as the packages declare them. */
function owners(): Owner[] {
  const out: Owner[] = [];
  for (const d of fs.readdirSync(path.join(root, 'packages'))) {
    const file = path.join(root, 'packages', d, 'package.json');
    if (!fs.existsSync(file)) continue;
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; svc?: { ownsTables?: string[] } };
    if (m.svc?.ownsTables) out.push({ name: m.name, dir: `packages/${d}/src/`, tables: m.svc.ownsTables });
  }
  return out;
}

const TABLES = schemaTables();
const OWNERS = owners();
const ownerOf = new Map<string, Owner>(OWNERS.flatMap((o) => o.tables.map((t) => [t, o] as const)));
const modelTable = new Map<string, string>([...TABLES].map(([t, m]) => [m, t]));
const ENGINE = OWNERS.find((o) => o.name === '@svc/engine')!;

/**
 * Writes outside the owner, each with its reason: `file` may run `verb` on
 * `table`. Keep this list short; a new entry needs its reason in
 * docs/architecture/overview.md too.
 */
const EXCEPTIONS: { file: string; verb: string; table: string; why: string }[] = [
  {
    file: 'packages/engine/src/sql/start-execution.ts',
    verb: 'INSERT',
    table: 'audit_events',
    why: 'the audit row of a start commits with the execution it records (@svc/identity sits below the engine and has no statement to run in its transaction)',
  },
  {
    file: 'apps/maintenance/src/sql/snapshots.ts',
    verb: 'UPDATE',
    table: 'snapshots',
    why: "storage cleanup releases a bundle in the statement that checks no execution pins it (the engine's EXECUTIONS relation, which @svc/namespaces, below the engine, cannot import)",
  },
  {
    file: 'apps/maintenance/src/sql/snapshots.ts',
    verb: 'DELETE',
    table: 'snapshots',
    why: 'storage cleanup deletes a snapshot in the statement that checks no execution refers to it (as above)',
  },
];

/**
 * Reads of the engine's tables outside packages/engine, each with its reason.
 * Every other reader calls `@svc/engine/read-models`.
 */
const READ_EXCEPTIONS: { file: string; table: string; why: string }[] = [
  {
    file: 'packages/namespaces/src/namespaces.ts',
    table: 'executions',
    why: 'deleting a namespace is refused while it has executions not ended, checked under the namespace lock (the engine depends on @svc/namespaces, so namespaces cannot import the read model)',
  },
];

function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'generated' && e.name !== 'dist') walk(p);
      } else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) out.push(path.relative(root, p).split(path.sep).join('/'));
    }
  };
  for (const top of ['apps', 'packages']) {
    for (const d of fs.readdirSync(path.join(root, top))) if (fs.existsSync(path.join(root, top, d, 'src'))) walk(path.join(root, top, d, 'src'));
  }
  return out;
}

const PRISMA_WRITES = 'create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany';
const PRISMA_READS = 'findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|count|aggregate|groupBy';
const MODELS = [...modelTable.keys()].join('|');

/** The table writes of one source text: `VERB table` for SQL, `table via prisma.<model>.<method>` for Prisma. */
function writesIn(text: string): { verb: string; table: string; what: string }[] {
  const out: { verb: string; table: string; what: string }[] = [];
  for (const m of text.matchAll(/\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_]*)/gi)) {
    const table = m[2].toLowerCase();
    if (!TABLES.has(table)) continue;
    const verb = m[1].split(/\s+/)[0].toUpperCase();
    out.push({ verb, table, what: `${verb} ${table}` });
  }
  for (const m of text.matchAll(new RegExp(`\\.(${MODELS})\\s*\\.\\s*(${PRISMA_WRITES})\\s*\\(`, 'g'))) {
    out.push({ verb: m[2], table: modelTable.get(m[1])!, what: `.${m[1]}.${m[2]}()` });
  }
  // A delegate taken whole (`const x = prisma.aiInsight;`, or passed on): its writes would not be seen above.
  for (const m of text.matchAll(new RegExp(`\\b(?:prisma|prismaOf\\([^()]*\\)|tx)\\s*\\.\\s*(${MODELS})\\s*[;,)]`, 'g'))) {
    out.push({ verb: 'delegate', table: modelTable.get(m[1])!, what: `.${m[1]} taken as a delegate` });
  }
  return out;
}

/** The reads of the engine's tables in one source text: `FROM|JOIN table` for SQL, `.<model>.<find…>()` for Prisma. */
function engineReadsIn(text: string): { table: string; what: string }[] {
  const out: { table: string; what: string }[] = [];
  for (const m of text.matchAll(/\b(FROM|JOIN)\s+([a-z_][a-z0-9_]*)/gi)) {
    const table = m[2].toLowerCase();
    if (ENGINE.tables.includes(table)) out.push({ table, what: `${m[1].toUpperCase()} ${table}` });
  }
  for (const m of text.matchAll(new RegExp(`\\.(${MODELS})\\s*\\.\\s*(${PRISMA_READS})\\s*\\(`, 'g'))) {
    const table = modelTable.get(m[1])!;
    if (ENGINE.tables.includes(table)) out.push({ table, what: `.${m[1]}.${m[2]}()` });
  }
  return out;
}

test('the scan sees each kind of write and read it checks for (so an empty result means something)', () => {
  const seen = (s: string) => writesIn(s).map((w) => w.what);
  assert.deepEqual(seen('await c.query(`DELETE FROM executions WHERE id = $1`)'), ['DELETE executions']);
  assert.deepEqual(seen('`WITH x AS (UPDATE\n  task_runs SET state = $1) insert into log_lines (a) values (1)`'), ['UPDATE task_runs', 'INSERT log_lines']);
  assert.deepEqual(seen('`SELECT id FROM emails FOR UPDATE SKIP LOCKED`'), []);
  assert.deepEqual(seen('tx.email.create({ data }); prisma.aiInsight.findMany({});'), ['.email.create()']);
  assert.deepEqual(seen('const insights = prismaOf(pool).aiInsight;'), ['.aiInsight taken as a delegate']);
  const read = (s: string) => engineReadsIn(s).map((r) => r.what);
  assert.deepEqual(read('`SELECT r.x FROM backfill_runs r JOIN executions e ON e.id = r.execution_id`'), ['JOIN executions']);
  assert.deepEqual(read('await prisma.logLine.findMany({}); await prisma.user.findMany({});'), ['.logLine.findMany()']);
  assert.deepEqual(read('`SELECT 1 FROM ${EXECUTIONS} e`'), []);
});

test('every table of the schema has exactly one owner package, declared in its package.json', () => {
  const declared = OWNERS.flatMap((o) => o.tables.map((t) => `${t} (${o.name})`));
  const twice = OWNERS.flatMap((o) => o.tables.filter((t) => OWNERS.some((p) => p !== o && p.tables.includes(t))).map((t) => `${t}: ${o.name}`));
  assert.deepEqual(twice, [], 'a table has two owners');
  assert.deepEqual(
    [...TABLES.keys()].filter((t) => !ownerOf.has(t)),
    [],
    'tables without an owner: add them to the "svc": { "ownsTables" } of the package that writes them',
  );
  assert.deepEqual(
    declared.filter((d) => !TABLES.has(d.split(' ')[0])),
    [],
    'declared tables that are not in prisma/schema.prisma',
  );
  assert.ok(TABLES.size > 60 && ENGINE.tables.includes('executions'), 'the schema and the declarations are read');
});

test('every table is written by its owner only', () => {
  const files = sources();
  assert.ok(files.includes('packages/engine/src/sql/start-execution.ts') && files.includes('apps/maintenance/src/retention.ts'), 'the scan reads the sources');
  const foreign: string[] = [];
  const byOwner = new Map<string, Set<string>>();
  const used = new Set<(typeof EXCEPTIONS)[number]>();
  for (const file of files) {
    for (const w of writesIn(fs.readFileSync(path.join(root, file), 'utf8'))) {
      const owner = ownerOf.get(w.table)!;
      if (file.startsWith(owner.dir)) {
        byOwner.set(w.table, (byOwner.get(w.table) ?? new Set()).add(file));
        continue;
      }
      const x = EXCEPTIONS.find((e) => e.file === file && e.table === w.table && e.verb === w.verb);
      if (x) {
        used.add(x);
        continue;
      }
      foreign.push(`${file}: ${w.what} (owner: ${owner.name}, ${owner.dir})`);
    }
  }
  assert.deepEqual(foreign, [], `writes outside the owner; call the owner's functions instead:\n${foreign.join('\n')}`);
  assert.deepEqual(
    EXCEPTIONS.filter((x) => !used.has(x)).map((x) => `${x.file}: ${x.verb} ${x.table}`),
    [],
    'exceptions that no longer happen: remove them (and their line in docs/architecture/overview.md)',
  );
  // The owners do write what they own (the scan is not blind to them).
  for (const t of [
    'executions',
    'task_runs',
    'log_lines',
    'ai_messages',
    'ai_insights',
    'emails',
    'backfills',
    'backfill_runs',
    'schedules',
    'alert_deliveries',
    'alert_rules',
    'git_sync_runs',
  ])
    assert.ok(byOwner.get(t)?.size, `no write of ${t} found in its owner`);
});

test("the engine's tables are read outside packages/engine through @svc/engine/read-models only", () => {
  const found: string[] = [];
  const used = new Set<(typeof READ_EXCEPTIONS)[number]>();
  for (const file of sources()) {
    if (file.startsWith(ENGINE.dir)) continue;
    for (const r of engineReadsIn(fs.readFileSync(path.join(root, file), 'utf8'))) {
      const x = READ_EXCEPTIONS.find((e) => e.file === file && e.table === r.table);
      if (x) {
        used.add(x);
        continue;
      }
      found.push(`${file}: ${r.what}`);
    }
  }
  assert.deepEqual(found, [], `reads of the engine's tables outside the engine; add a function to packages/engine/src/read-models/ instead:\n${found.join('\n')}`);
  assert.deepEqual(
    READ_EXCEPTIONS.filter((x) => !used.has(x)).map((x) => `${x.file}: ${x.table}`),
    [],
    'read exceptions that no longer happen: remove them',
  );
});

test('the read models import no engine system (they are read without the engine wiring)', () => {
  const dir = path.join(root, 'packages/engine/src/read-models');
  const bad: string[] = [];
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of text.matchAll(/from\s+'([^']+)'/g)) {
      const spec = m[1];
      const ok = spec.startsWith('./') || spec === '../db.js' || spec === '../rows.js' || spec === 'pg' || spec === '@svc/db';
      if (!ok) bad.push(`read-models/${f}: ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});

test("the engine's execution retention deletes only the engine's tables (an execution's AI insights go by their foreign key's cascade)", () => {
  const outside = EXECUTION_CHILD_TABLES.filter((t) => !ENGINE.tables.includes(t));
  assert.deepEqual(outside, []);
});

test('statements whose table is computed are the engine retention and the job queue only (the scan cannot read their table)', () => {
  const dynamic: string[] = [];
  for (const file of sources()) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    if (/\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+\$\{/i.test(text)) dynamic.push(file);
  }
  // The job queue (@svc/jobs) runs its statements on the table its owner declares: checked below.
  assert.deepEqual(dynamic, ['packages/engine/src/sql/retention.ts', 'packages/jobs/src/sql.ts']);
});

test('a job queue on an owned table is declared by its owner', () => {
  const found: string[] = [];
  const foreign: string[] = [];
  for (const file of sources()) {
    for (const m of fs.readFileSync(path.join(root, file), 'utf8').matchAll(/new JobQueue(?:<[^>]*>)?\(\s*\{\s*table:\s*'([a-z_]+)'/g)) {
      found.push(m[1]);
      const owner = ownerOf.get(m[1]);
      if (owner && !file.startsWith(owner.dir)) foreign.push(`${file}: a job queue on ${m[1]} (owner: ${owner.dir})`);
    }
  }
  assert.ok(found.includes('emails'), 'the scan sees the email queue');
  assert.deepEqual(foreign, []);
});
