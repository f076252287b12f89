// Storing log lines: one statement for batches of one execution (systems/log-appender.ts
// gathers them), built here with its parameters.
import type { Queryable } from '@svc/db';
import { LOG_CHANNEL } from '../channels.js';
import type { AppendBatch } from '../types.js';

const numberArray = (xs: readonly number[]) => `{${xs.join(',')}}`;

/** A PostgreSQL array literal of text: each element quoted, `"` and `\` escaped (pg's own escaping runs two regexps per element). */
function textArray(xs: readonly string[]): string {
  let out = '{';
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (i) out += ',';
    out += x.includes('"') || x.includes('\\') ? `"${x.replace(/[\\"]/g, '\\$&')}"` : `"${x}"`;
  }
  return out + '}';
}

/** A batch of one task run's lines, in `n` order. */

/**
 * The statement that stores `batches` (all of one execution; each in `n`
 * order): the lines' `seq` numbers from the execution's `log_sequences` row
 * (taken first, so statements of one execution queue on it and commit in
 * `seq` order), the insert, each task run's `log_seq` (highest `n` stored),
 * and a NOTIFY for live streams. It returns per batch (1-based) the lines
 * newly stored: `safe` as `[batch, lines]` pairs, `plain` the total (all
 * of them, or the statement failed).
 *
 * Per line only what differs from line to line is sent; the task run of a
 * line is its batch's, found by `width_bucket` over the ordinals of the
 * batches' first lines. `plain` inserts without ON CONFLICT, whose
 * speculative insertion costs about a fifth of the statement (bench/RESULTS.md,
 * logs): it fails on the unique key if a line was stored already.
 */
export function appendStatement(executionId: string, batches: readonly AppendBatch[], mode: 'plain' | 'safe'): { text: string; values: unknown[] } {
  const ns: number[] = [];
  const tss: string[] = [];
  const streams: string[] = [];
  const texts: string[] = [];
  const starts: number[] = [];
  const highest = new Map<string, number>();
  for (const b of batches) {
    starts.push(ns.length + 1);
    for (const l of b.lines) {
      ns.push(l.n);
      tss.push(l.ts);
      streams.push(l.stream);
      texts.push(l.text);
    }
    highest.set(b.taskRunId, Math.max(highest.get(b.taskRunId) ?? 0, b.lines.at(-1)!.n));
  }
  // Task runs in one order in every statement.
  const runs = [...highest.keys()].sort();
  const values = [
    executionId,
    ns.length,
    textArray(batches.map((b) => b.taskRunId)),
    textArray(batches.map((b) => b.who.task_key)),
    numberArray(batches.map((b) => b.who.attempt)),
    numberArray(ns),
    textArray(tss),
    textArray(streams),
    textArray(texts),
    numberArray(starts),
    textArray(runs),
    numberArray(runs.map((id) => highest.get(id)!)),
    LOG_CHANNEL,
  ];
  // plain: every line is inserted or the statement fails, so the counts are the batches' sizes (no RETURNING to aggregate).
  const counted =
    mode === 'safe'
      ? `ON CONFLICT (task_run_id, n) DO NOTHING RETURNING seq),
       counted AS (SELECT width_bucket((ins.seq - c.base)::int, $10::int[]) AS b, count(*)::int AS n FROM ins, c GROUP BY 1),`
      : `RETURNING 1),`;
  const stored = mode === 'safe' ? `(SELECT json_agg(json_build_array(b, n)) FROM counted)` : `(SELECT count(*) FROM ins)`;
  const text = `WITH c AS (
         INSERT INTO log_sequences AS q (execution_id, seq) VALUES ($1, $2)
         ON CONFLICT (execution_id) DO UPDATE SET seq = q.seq + $2 RETURNING q.seq - $2 AS base),
       ins AS (
         INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq)
         SELECT ($3::text[])[l.b], l.n, $1, ($4::text[])[l.b], ($5::int[])[l.b], l.ts, l.s, l.t, c.base + l.o
         FROM c, (SELECT width_bucket(o::int, $10::int[]) AS b, * FROM unnest($6::int[], $7::bigint[], $8::text[], $9::text[]) WITH ORDINALITY AS u(n, ts, s, t, o)) l
         ${counted}
       seq AS (
         UPDATE task_runs t SET log_seq = GREATEST(t.log_seq, m.n)
         FROM unnest($11::text[], $12::int[]) AS m(id, n) WHERE t.id = m.id RETURNING 1)
       SELECT ${stored} AS stored, (SELECT count(*) FROM seq) AS s, pg_notify($13, $1)`;
  return { text, values };
}

/** The lines in `n` order (a copy only when they were not). */

/**
 * Stores `batches` (all of one execution) in one statement (appendStatement):
 * per batch, the lines newly stored.
 */
export async function appendLogLines(db: Queryable, p: { executionId: string; batches: readonly AppendBatch[]; mode: 'plain' | 'safe' }): Promise<number[]> {
  const st = appendStatement(p.executionId, p.batches, p.mode);
  const r = await db.query<{ stored: [number, number][] | string | null }>(st.text, st.values);
  if (p.mode === 'plain') return p.batches.map((b) => b.lines.length);
  const stored = p.batches.map(() => 0);
  for (const [b, n] of (r.rows[0]?.stored as [number, number][] | null) ?? []) stored[b - 1] = n;
  return stored;
}
