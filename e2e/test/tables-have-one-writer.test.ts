// One owner per table (issue #31): the tables of an execution and its logs,
// the AI data, the email queue and the backfills are each written by one
// place only; every other package calls the owner's functions. Checked
// statically over the sources of apps/*/src and packages/*/src (tests and
// generated code left out): the SQL text of INSERT INTO / UPDATE / DELETE FROM <table>, and
// Prisma writes (`.<model>.create|update|upsert|delete…`, or a model's
// delegate taken into a variable, which hides the write from the scan).
// docs/architecture/overview.md lists the owners.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXECUTION_CHILD_TABLES } from '@svc/engine/internal';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Owner {
  /** Where the writes live: a folder of the repository, or one file. */
  dir: string;
  tables: Record<string, string>;
}

/** Owned tables (SQL name → Prisma model) by owner. */
const OWNERS: Owner[] = [
  {
    dir: 'packages/engine/src/',
    tables: {
      executions: 'execution',
      execution_history: 'executionHistory',
      task_runs: 'taskRun',
      plan_requests: 'planRequest',
      engine_outbox: 'engineOutbox',
      dashboard_hours: 'dashboardHour',
      dashboard_hour_figures: 'dashboardHourFigure',
      log_lines: 'logLine',
      log_sequences: 'logSequence',
      log_archives: 'logArchive',
      artifacts: 'artifact',
      task_metrics: 'taskMetric',
    },
  },
  {
    dir: 'packages/ai-data/src/',
    tables: {
      ai_conversations: 'aiConversation',
      ai_messages: 'aiMessage',
      ai_pending_actions: 'aiPendingAction',
      ai_insights: 'aiInsight',
      ai_usage: 'aiUsage',
      ai_provider: 'aiProvider',
    },
  },
  { dir: 'packages/identity/src/', tables: { emails: 'email', org_email_usage: 'orgEmailUsage' } },
  { dir: 'packages/db/src/sql/backfills.ts', tables: { backfills: 'backfill', backfill_runs: 'backfillRun' } },
];

/**
 * Writes outside the owner, each with its reason: `file` may run `verb` on `table`.
 * Keep this list short; a new entry needs the reason in docs/architecture/overview.md too.
 */
const EXCEPTIONS: { file: string; verb: string; table: string }[] = [];

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

const ownerOf = new Map<string, Owner>(OWNERS.flatMap((o) => Object.keys(o.tables).map((t) => [t, o] as const)));
const modelOwner = new Map<string, [string, Owner]>(OWNERS.flatMap((o) => Object.entries(o.tables).map(([t, m]) => [m, [t, o]] as const)));
const PRISMA_WRITES = 'create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany';

/** The owned-table writes of one source text: `VERB table` for SQL, `table via prisma.<model>.<method>` for Prisma. */
function writesIn(text: string): { verb: string; table: string; what: string }[] {
  const out: { verb: string; table: string; what: string }[] = [];
  for (const m of text.matchAll(/\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_]*)/gi)) {
    const table = m[2].toLowerCase();
    if (!ownerOf.has(table)) continue;
    const verb = m[1].split(/\s+/)[0].toUpperCase();
    out.push({ verb, table, what: `${verb} ${table}` });
  }
  const models = [...modelOwner.keys()].join('|');
  for (const m of text.matchAll(new RegExp(`\\.(${models})\\s*\\.\\s*(${PRISMA_WRITES})\\s*\\(`, 'g'))) {
    out.push({ verb: m[2], table: modelOwner.get(m[1])![0], what: `.${m[1]}.${m[2]}()` });
  }
  // A delegate taken whole (`const x = prisma.aiInsight;`, or passed on): its writes would not be seen above.
  for (const m of text.matchAll(new RegExp(`\\b(?:prisma|prismaOf\\([^()]*\\)|tx)\\s*\\.\\s*(${models})\\s*[;,)]`, 'g'))) {
    out.push({ verb: 'delegate', table: modelOwner.get(m[1])![0], what: `.${m[1]} taken as a delegate` });
  }
  return out;
}

test('the scan sees each kind of write it checks for (so an empty result means something)', () => {
  const seen = (s: string) => writesIn(s).map((w) => w.what);
  assert.deepEqual(seen('await c.query(`DELETE FROM executions WHERE id = $1`)'), ['DELETE executions']);
  assert.deepEqual(seen('`WITH x AS (UPDATE\n  task_runs SET state = $1) insert into log_lines (a) values (1)`'), ['UPDATE task_runs', 'INSERT log_lines']);
  assert.deepEqual(seen('`SELECT id FROM emails FOR UPDATE SKIP LOCKED`'), []);
  assert.deepEqual(seen('tx.email.create({ data }); prisma.aiInsight.findMany({});'), ['.email.create()']);
  assert.deepEqual(seen('const insights = prismaOf(pool).aiInsight;'), ['.aiInsight taken as a delegate']);
});

test('the tables of executions and logs, the AI data, the email queue and the backfills are written by their owner only', () => {
  const files = sources();
  assert.ok(files.includes('packages/engine/src/sql/start-execution.ts') && files.includes('apps/maintenance/src/retention.ts'), 'the scan reads the sources');
  const foreign: string[] = [];
  const byOwner = new Map<string, Set<string>>();
  for (const file of files) {
    for (const w of writesIn(fs.readFileSync(path.join(root, file), 'utf8'))) {
      const owner = ownerOf.get(w.table)!;
      if (file.startsWith(owner.dir)) {
        byOwner.set(w.table, (byOwner.get(w.table) ?? new Set()).add(file));
        continue;
      }
      if (EXCEPTIONS.some((x) => x.file === file && x.table === w.table && x.verb === w.verb)) continue;
      foreign.push(`${file}: ${w.what} (owner: ${owner.dir})`);
    }
  }
  assert.deepEqual(foreign, [], `writes outside the owner; call the owner's functions instead:\n${foreign.join('\n')}`);
  // The owners do write what they own (the scan is not blind to them).
  for (const t of ['executions', 'task_runs', 'log_lines', 'ai_messages', 'ai_insights', 'emails', 'backfills', 'backfill_runs'])
    assert.ok(byOwner.get(t)?.size, `no write of ${t} found in its owner`);
});

test("the engine's execution retention deletes only the engine's tables (an execution's AI insights go by their foreign key's cascade)", () => {
  const engine = OWNERS[0];
  const outside = EXECUTION_CHILD_TABLES.filter((t) => !(t in engine.tables));
  assert.deepEqual(outside, []);
});

test('statements whose table is computed are the engine retention only (the scan cannot read their table)', () => {
  const dynamic: string[] = [];
  for (const file of sources()) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    if (/\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+\$\{/i.test(text)) dynamic.push(file);
  }
  assert.deepEqual(dynamic, ['packages/engine/src/sql/retention.ts']);
});
