// Migration 20261206150000_git_sync_run_claims on a database that already
// holds sync runs: every run is kept as it was; a queued request becomes a
// job due from when it was asked for, with no attempt yet, a run that
// started counts its one attempt, and no run has a claim (a run left
// running by a stopped instance is failed by the next holder of its
// source's lease, as before).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { applyMigrations, loadMigrations } from '../src/migrate.js';
import { createEmptyTestDatabase } from '../src/testing.js';

const MIGRATION = '20261206150000_git_sync_run_claims';

let db: Awaited<ReturnType<typeof createEmptyTestDatabase>>;
let p: pg.Pool;

before(async () => {
  db = await createEmptyTestDatabase();
  p = db.pool;
});
after(() => db.drop());

test('existing sync runs are kept; queued ones become due jobs from their request time, started ones count one attempt', async () => {
  const all = loadMigrations();
  const at = all.findIndex((m) => m.name === MIGRATION);
  assert.ok(at > 0, `${MIGRATION} is carried by the build`);
  await applyMigrations(p, all.slice(0, at));
  const asked = new Date('2026-12-01T10:00:00Z');
  await p.query(
    `INSERT INTO git_sync_runs (id, git_source_id, trigger, requested_by, status, sha, error, started_at, ended_at) VALUES
       ('q', 'src', 'manual', 'ann', 'queued', '', '', $1, NULL),
       ('r', 'src', 'poll', '', 'running', '', '', $1, NULL),
       ('s', 'src', 'webhook', 'hook', 'success', 'abc', '', $1, $1),
       ('f', 'src', 'manual', 'bob', 'failed', '', 'no route to host', $1, $1)`,
    [asked],
  );
  const before = (await p.query(`SELECT id, git_source_id, trigger, requested_by, status, sha, error, details, started_at, ended_at FROM git_sync_runs ORDER BY id`)).rows;
  assert.deepEqual(await applyMigrations(p, all.slice(0, at + 1)), [MIGRATION]);

  const after = (await p.query(`SELECT * FROM git_sync_runs ORDER BY id`)).rows as Record<string, unknown>[];
  assert.deepEqual(
    after.map(({ attempts: _a, next_attempt_at: _n, locked_by: _b, locked_until: _u, ...kept }) => kept),
    before,
    'what the API answers of each run is unchanged',
  );
  assert.deepEqual(
    after.map((r) => [r.id, r.attempts, (r.next_attempt_at as Date).toISOString(), r.locked_by, r.locked_until]),
    [
      ['f', 1, asked.toISOString(), null, null],
      ['q', 0, asked.toISOString(), null, null],
      ['r', 1, asked.toISOString(), null, null],
      ['s', 1, asked.toISOString(), null, null],
    ],
  );
});
