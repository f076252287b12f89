// AI triage of a FAILED or TIMED_OUT execution: collect the evidence (failed
// task runs with their errors and reasons, the tail of their logs, the flow
// definition, what changed since the flow's last successful run), mask every
// secret value the execution used, ask the model for a summary, a probable
// cause and a suggested fix, and store it as an insight citing its evidence.
import type pg from 'pg';
import type { MasterKey } from '@svc/config';
import { newId } from '@svc/db';
import { SecretMasker } from '@svc/engine/internal';
import { ProviderStore, SecretStore } from '@svc/secrets';
import { fileDiff } from './tools.js';
import { builtinSecretValues } from './masking.js';
import { chatModel, type AIProviderStore } from './provider.js';

/** Log lines of each failed task run given to the model (its tail). */
export const LOG_TAIL_LINES = 50;
export const TRIAGE_STATES = new Set(['FAILED', 'TIMED_OUT']);

export interface Evidence {
  id: string;
  kind: 'task_run' | 'log_tail' | 'flow_definition' | 'changes_since_success' | 'execution';
  title: string;
  content: string;
  cited?: boolean;
}

interface InsightRow {
  id: string;
  execution_id: string;
  status: string;
  summary: string;
  probable_cause: string;
  suggested_fix: string;
  details: string;
  evidence: Evidence[];
  model: string;
  error: string;
  requested_by: string;
  created_at: Date;
  completed_at: Date | null;
}

export function insightBody(r: InsightRow) {
  return {
    id: r.id,
    execution_id: r.execution_id,
    state: r.status,
    summary: r.status === 'done' ? r.summary : null,
    probable_cause: r.probable_cause,
    suggested_fix: r.suggested_fix,
    details: r.details,
    evidence: r.evidence,
    model: r.model,
    ...(r.error ? { error: r.error } : {}),
    requested_by: r.requested_by,
    created_at: r.created_at.toISOString(),
    completed_at: r.completed_at?.toISOString() ?? null,
  };
}

export interface TriageDeps {
  pool: pg.Pool;
  masterKeys: readonly MasterKey[];
  providers: AIProviderStore;
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown };
}

export async function insightsOf(pool: pg.Pool, executionId: string, limit: number, before?: { created_at: string; id: string }) {
  const r = await pool.query<InsightRow>(
    `SELECT * FROM ai_insights WHERE execution_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [executionId, before?.created_at ?? null, before?.id ?? null, limit + 1],
  );
  return r.rows;
}

export async function createInsight(pool: pg.Pool, executionId: string, requestedBy: string): Promise<InsightRow> {
  const r = await pool.query<InsightRow>(`INSERT INTO ai_insights (id, execution_id, kind, status, requested_by) VALUES ($1, $2, 'triage', 'pending', $3) RETURNING *`, [newId(), executionId, requestedBy]);
  return r.rows[0]!;
}

interface ExecRow {
  id: string;
  state: string;
  reason: string;
  error: string;
  namespace: string;
  flow_id: string | null;
  definition: unknown;
  inputs: unknown;
  created_at: Date;
  snapshot_version: number | null;
  flow_revision_id: string | null;
  secret_keys_used: string[];
}

/** The values of every secret the execution used (as they are now), to mask the evidence with. */
async function secretValues(deps: TriageDeps, e: ExecRow): Promise<string[]> {
  const store = new SecretStore({ db: deps.pool, keys: deps.masterKeys, providers: new ProviderStore({ db: deps.pool, keys: deps.masterKeys }) });
  const out: string[] = [];
  for (const key of e.secret_keys_used ?? []) {
    try {
      out.push((await store.resolve(e.namespace, key)).value);
    } catch {
      // A secret deleted since: its value cannot be in new evidence beyond what was already masked at the source.
    }
  }
  return out;
}

/** Collects the evidence of an execution, every text masked against its secrets. */
export async function collectEvidence(deps: TriageDeps, executionId: string): Promise<{ evidence: Evidence[]; mask: SecretMasker }> {
  const { pool } = deps;
  const e = (await pool.query<ExecRow>(`SELECT * FROM executions WHERE id = $1`, [executionId])).rows[0];
  if (!e) return { evidence: [], mask: new SecretMasker([]) };
  // The secrets the execution used, and every builtin one (a value printed before it was a secret, or written in the flow).
  const mask = new SecretMasker([...(await secretValues(deps, e)), ...(await builtinSecretValues(deps))]);
  const ev: Evidence[] = [];
  let n = 0;
  const add = (kind: Evidence['kind'], title: string, content: string) => ev.push({ id: `E${++n}`, kind, title, content: mask.text(content) });

  add('execution', `Execution ${e.id}`, JSON.stringify({ state: e.state, reason: e.reason, error: e.error, namespace: e.namespace, flow_id: e.flow_id, inputs: e.inputs }, null, 2));
  const runs = await pool.query<{ id: string; task_key: string; attempt: number; state: string; reason: string; error: string; exit_code: number | null }>(
    `SELECT id, task_key, attempt, state, reason, error, exit_code FROM task_runs
     WHERE execution_id = $1 AND state IN ('FAILED', 'TIMED_OUT') ORDER BY created_at, task_key, attempt`,
    [executionId],
  );
  for (const r of runs.rows) {
    add('task_run', `Task ${r.task_key} attempt ${r.attempt}: ${r.state}`, JSON.stringify({ task: r.task_key, attempt: r.attempt, state: r.state, reason: r.reason, error: r.error, exit_code: r.exit_code }, null, 2));
    const lines = await pool.query<{ stream: string; text: string }>(`SELECT stream, text FROM log_lines WHERE task_run_id = $1 ORDER BY n DESC LIMIT $2`, [r.id, LOG_TAIL_LINES]);
    if (lines.rows.length) add('log_tail', `Last ${lines.rows.length} log lines of ${r.task_key} attempt ${r.attempt}`, lines.rows.reverse().map((l) => `[${l.stream}] ${l.text}`).join('\n'));
  }
  const definition = JSON.stringify(e.definition, null, 2);
  add('flow_definition', `Flow definition of ${e.namespace}/${e.flow_id ?? '(file run)'}`, definition);
  if (e.flow_id) {
    const ok = (
      await pool.query<ExecRow>(
        `SELECT * FROM executions WHERE namespace = $1 AND flow_id = $2 AND state = 'SUCCESS' AND created_at < $3 ORDER BY created_at DESC LIMIT 1`,
        [e.namespace, e.flow_id, e.created_at],
      )
    ).rows[0];
    if (!ok) add('changes_since_success', 'Changes since the last successful run', 'The flow has no earlier successful run.');
    else {
      const parts = [`Last success: execution ${ok.id} at ${ok.created_at.toISOString()} (namespace version ${ok.snapshot_version ?? '?'}; this run: ${e.snapshot_version ?? '?'}).`];
      const before = JSON.stringify(ok.definition, null, 2);
      parts.push(before === definition ? 'Flow definition: unchanged.' : `Flow definition diff:\n${fileDiff('flow.json', before, definition)}`);
      const ib = JSON.stringify(ok.inputs);
      const ia = JSON.stringify(e.inputs);
      parts.push(ib === ia ? 'Inputs: unchanged.' : `Inputs then: ${ib}\nInputs now: ${ia}`);
      add('changes_since_success', 'Changes since the last successful run', parts.join('\n'));
    }
  }
  return { evidence: ev, mask };
}

const SYSTEM = `You triage failed workflow executions of a workflow orchestration service.
You get numbered evidence items (E1, E2, ...). Answer with one JSON object only, no prose around it:
{"summary": "one sentence", "probable_cause": "...", "suggested_fix": "...", "evidence": ["E2", "E3"]}
"evidence" lists the ids of the items your answer rests on. Do not invent facts that are not in the evidence.`;

/** Parses the model's answer: the JSON object, or the whole text as the summary. */
export function parseTriage(text: string): { summary: string; probable_cause: string; suggested_fix: string; evidence: string[] } {
  const m = /\{[\s\S]*\}/.exec(text);
  if (m) {
    try {
      const v = JSON.parse(m[0]) as Record<string, unknown>;
      return {
        summary: String(v.summary ?? '').trim(),
        probable_cause: String(v.probable_cause ?? '').trim(),
        suggested_fix: String(v.suggested_fix ?? '').trim(),
        evidence: Array.isArray(v.evidence) ? v.evidence.map(String) : [],
      };
    } catch {
      // Not JSON after all: fall through.
    }
  }
  return { summary: text.trim().split('\n')[0]!.slice(0, 500), probable_cause: '', suggested_fix: '', evidence: [] };
}

/** Runs a pending insight to its end (done or failed). Never throws. */
export async function runTriage(deps: TriageDeps, insightId: string, executionId: string): Promise<void> {
  const { pool } = deps;
  try {
    await pool.query(`UPDATE ai_insights SET status = 'running' WHERE id = $1`, [insightId]);
    const settings = await deps.providers.settings();
    if (!settings) throw new Error('AI is disabled: no provider is configured');
    const { evidence, mask } = await collectEvidence(deps, executionId);
    const model = chatModel(settings);
    const prompt = evidence.map((e) => `### ${e.id} (${e.kind}): ${e.title}\n${e.content}`).join('\n\n');
    const out = await model.chat({ messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: prompt }], maxTokens: 1024 });
    const t = parseTriage(mask.text(out.text));
    const cited = new Set(t.evidence);
    // Every answer shows its evidence: without citations, all of it stands behind the answer.
    const marked = evidence.map((e) => ({ ...e, cited: cited.size === 0 || cited.has(e.id) }));
    const details = [`**Summary**: ${t.summary}`, `**Probable cause**: ${t.probable_cause}`, `**Suggested fix**: ${t.suggested_fix}`, `**Evidence**: ${marked.filter((e) => e.cited).map((e) => `${e.id} ${e.title}`).join('; ')}`].join('\n\n');
    // The model saw only masked text, but its answer is masked again in case it echoed a secret from elsewhere.
    await pool.query(
      `UPDATE ai_insights SET status = 'done', summary = $2, probable_cause = $3, suggested_fix = $4, details = $5, evidence = $6, model = $7, completed_at = now() WHERE id = $1`,
      [insightId, t.summary || '(no summary)', t.probable_cause, t.suggested_fix, details, JSON.stringify(marked), settings.model],
    );
  } catch (err) {
    deps.log.warn('triage failed', { insight_id: insightId, execution_id: executionId, err });
    await pool.query(`UPDATE ai_insights SET status = 'failed', error = $2, completed_at = now() WHERE id = $1`, [insightId, String((err as Error)?.message ?? err).slice(0, 1000)]).catch(() => undefined);
  }
}
