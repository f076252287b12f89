// AI triage of a FAILED or TIMED_OUT execution: collect the evidence (failed
// task runs with their errors and reasons, the tail of their logs, the flow
// definition, what changed since the flow's last successful run), mask every
// secret value the execution used, ask the model for a summary, a probable
// cause and a suggested fix, and store it as an insight citing its evidence.
// The evidence is masked with the execution's scope (masking.ts): the
// secrets it used, and those of its namespace, its parents and globals. The
// insight rows are written by insights.ts.
import type pg from 'pg';
import type { Schemas } from '@svc/api-spec';
import type { MasterKey } from '@svc/config';
import { failedTaskRuns, lastSuccessBefore, logTail, triageExecution } from '@svc/engine/read-models';
import { Masker } from '@svc/masking';
import { ToolResultMasker } from './masking.js';
import { completeInsight, failInsight, markInsightRunning, type InsightRow } from './insights.js';
import { AUTO_USER, estimateTokens, type AIUsage } from './limits.js';
import { chatModel, type AIProviderStore } from './models.js';
import { argText, fileDiff } from './text.js';

/** Log lines of each failed task run given to the model (its tail). */
export const LOG_TAIL_LINES = 50;
export const TRIAGE_STATES = new Set(['FAILED', 'TIMED_OUT']);

/** An evidence item (the InsightEvidence object): stored with the insight as it is shown. */
export type Evidence = Schemas['InsightEvidence'];

export function insightBody(r: InsightRow): Schemas['Insight'] {
  return {
    id: r.id,
    execution_id: r.executionId,
    // An InsightState of insights.ts: a state it writes that the document's InsightState lacks does not compile.
    state: r.status,
    summary: r.status === 'done' ? r.summary : null,
    probable_cause: r.probableCause,
    suggested_fix: r.suggestedFix,
    details: r.details,
    // Written by runTriage below as Evidence[] (a JSON column).
    evidence: r.evidence as unknown as Evidence[],
    model: r.model,
    ...(r.error ? { error: r.error } : {}),
    requested_by: r.requestedBy,
    created_at: r.createdAt.toISOString(),
    completed_at: r.completedAt?.toISOString() ?? null,
  };
}

export interface TriageDeps {
  pool: pg.Pool;
  masterKeys: readonly MasterKey[];
  providers: AIProviderStore;
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown };
  /** Daily limits: the triage's request is taken by its caller; its tokens are counted here. */
  usage?: AIUsage;
}

/** Collects the evidence of an execution, every text masked against its secrets. */
export async function collectEvidence(deps: TriageDeps, executionId: string): Promise<{ evidence: Evidence[]; mask: Masker }> {
  const e = await triageExecution(deps.pool, executionId);
  if (!e) return { evidence: [], mask: new Masker([]) };
  // The secrets the execution used, and the builtin ones of its scope (a value printed before it was a
  // secret, or written in the flow); not every stored secret, which would make masking an oracle.
  const mask = await new ToolResultMasker(deps).forScope({ namespaces: [e.namespace], executions: [e.id] });
  const ev: Evidence[] = [];
  let n = 0;
  const add = (kind: Evidence['kind'], title: string, content: string, ref: Partial<Evidence> = {}) => ev.push({ id: `E${++n}`, kind, title, content: mask.text(content), ...ref });

  add(
    'execution',
    `Execution ${e.id}`,
    JSON.stringify({ state: e.state, reason: e.reason, error: e.error, namespace: e.namespace, flow_id: e.flowId, inputs: e.inputs }, null, 2),
    { execution_id: e.id },
  );
  const runs = await failedTaskRuns(deps.pool, executionId);
  for (const r of runs) {
    const run = { execution_id: e.id, task_run_id: r.id, task_key: r.taskKey, attempt: r.attempt };
    add(
      'task_run',
      `Task ${r.taskKey} attempt ${r.attempt}: ${r.state}`,
      JSON.stringify({ task: r.taskKey, attempt: r.attempt, state: r.state, reason: r.reason, error: r.error, exit_code: r.exitCode }, null, 2),
      run,
    );
    const lines = await logTail(deps.pool, r.id, LOG_TAIL_LINES);
    // One text line per log line (a line holding a newline is shown on one), so `lines` numbers them.
    if (lines.length)
      add('log_tail', `Last ${lines.length} log lines of ${r.taskKey} attempt ${r.attempt}`, lines.map((l) => `[${l.stream}] ${l.text.replace(/\r?\n/g, ' ')}`).join('\n'), {
        ...run,
        lines: lines.map((l) => Number(l.n)),
      });
  }
  const definition = JSON.stringify(e.definition, null, 2);
  add('flow_definition', `Flow definition of ${e.namespace}/${e.flowId ?? '(file run)'}`, definition, { execution_id: e.id });
  if (e.flowId) {
    const ok = await lastSuccessBefore(deps.pool, { namespace: e.namespace, flowId: e.flowId, before: e.createdAt });
    if (!ok) add('changes_since_success', 'Changes since the last successful run', 'The flow has no earlier successful run.');
    else {
      const parts = [`Last success: execution ${ok.id} at ${ok.createdAt.toISOString()} (namespace version ${ok.snapshotVersion ?? '?'}; this run: ${e.snapshotVersion ?? '?'}).`];
      const before = JSON.stringify(ok.definition, null, 2);
      parts.push(before === definition ? 'Flow definition: unchanged.' : `Flow definition diff:\n${fileDiff('flow.json', before, definition)}`);
      const ib = JSON.stringify(ok.inputs);
      const ia = JSON.stringify(e.inputs);
      parts.push(ib === ia ? 'Inputs: unchanged.' : `Inputs then: ${ib}\nInputs now: ${ia}`);
      add('changes_since_success', 'Changes since the last successful run', parts.join('\n'), { execution_id: ok.id });
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
        summary: argText(v.summary).trim(),
        probable_cause: argText(v.probable_cause).trim(),
        suggested_fix: argText(v.suggested_fix).trim(),
        evidence: Array.isArray(v.evidence) ? v.evidence.map(String) : [],
      };
    } catch {
      // Not JSON after all: fall through.
    }
  }
  return { summary: text.trim().split('\n')[0].slice(0, 500), probable_cause: '', suggested_fix: '', evidence: [] };
}

/** Runs a pending insight to its end (done or failed). Never throws. */
export async function runTriage(deps: TriageDeps, insightId: string, executionId: string, usageUser: string = AUTO_USER): Promise<void> {
  try {
    await markInsightRunning(deps.pool, insightId);
    const settings = await deps.providers.settings();
    if (!settings) throw new Error('AI is disabled: no provider is configured');
    const { evidence, mask } = await collectEvidence(deps, executionId);
    const model = chatModel(settings);
    const prompt = evidence.map((e) => `### ${e.id} (${e.kind}): ${e.title}\n${e.content}`).join('\n\n');
    const out = await model.chat({
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: prompt },
      ],
      maxTokens: 1024,
    });
    await deps.usage?.addTokens(usageUser, (out.inputTokens ?? estimateTokens(SYSTEM + prompt)) + (out.outputTokens ?? estimateTokens(out.text)));
    const t = parseTriage(mask.text(out.text));
    const cited = new Set(t.evidence);
    // Every answer shows its evidence: without citations, all of it stands behind the answer.
    const marked = evidence.map((e) => ({ ...e, cited: cited.size === 0 || cited.has(e.id) }));
    const details = [
      `**Summary**: ${t.summary}`,
      `**Probable cause**: ${t.probable_cause}`,
      `**Suggested fix**: ${t.suggested_fix}`,
      `**Evidence**: ${marked
        .filter((e) => e.cited)
        .map((e) => `${e.id} ${e.title}`)
        .join('; ')}`,
    ].join('\n\n');
    // The model saw only masked text, but its answer is masked again in case it echoed a secret from elsewhere.
    await completeInsight(deps.pool, insightId, {
      summary: t.summary || '(no summary)',
      probableCause: t.probable_cause,
      suggestedFix: t.suggested_fix,
      details,
      evidence: marked,
      model: settings.model,
    });
  } catch (err) {
    deps.log.warn('triage failed', { insight_id: insightId, execution_id: executionId, err });
    await failInsight(deps.pool, insightId, String((err as Error)?.message ?? err).slice(0, 1000)).catch(() => undefined);
  }
}
