// The AI assistant, its provider and triage: provider settings (changed by
// an admin, read by every viewer like every GET not excepted in the roles of
// decisions.md; the API key write-only, sealed, no credential in base_url), the status every viewer may read, the own
// conversations with their streamed turns, confirming or rejecting the
// actions the assistant proposed (run with the confirming user's role, and
// audited), and the triage insights of failed executions. Everything but the
// status, the reads of existing conversations and insights, and the provider
// settings themselves answers 409 `ai_disabled` while no provider is set.
import type pg from 'pg';
import { newId, type Db } from '@svc/db';
import { conflict, encodeCursor, notFound, reply, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import type { MasterKey } from '@svc/config';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import { secretHttpError } from './secrets.js';
import { runTurn } from '../ai/assistant.js';
import { asHttpError, type Invoke } from '../ai/invoke.js';
import { restoreMaskedLines, ToolResultMasker, unresolvedMaskMessage } from '../ai/masking.js';
import { AIProviderStore, chatModel, isProviderType, PROVIDER_TYPES, type ProviderSettings } from '../ai/provider.js';
import { toolByName } from '../ai/tools.js';
import { createInsight, insightBody, insightsOf, runTriage, TRIAGE_STATES } from '../ai/triage.js';
import { sseEvent, SseWriter } from '../live/sse.js';

type Ctx = HandlerContext<AuthPrincipal>;

export interface AIRouteDeps {
  db: Db;
  masterKeys: readonly MasterKey[];
  now: () => Date;
  invoke: Invoke;
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown };
  /** Background work (triage) in flight; the gateway waits for it on close. */
  background: Set<Promise<unknown>>;
  /** Ends open turns when the gateway stops. */
  signal?: AbortSignal;
}

export const aiDisabled = () => conflict('ai_disabled', 'AI is disabled: no AI provider is configured (PUT /api/v1/ai/provider)');

function conversationBody(r: { id: string; title: string; created_at: Date; updated_at: Date }, messages?: unknown[], actions?: unknown[]) {
  return { id: r.id, title: r.title, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(), ...(messages ? { messages } : {}), ...(actions ? { actions } : {}) };
}

interface ActionRow {
  id: string;
  conversation_id: string;
  message_id: string | null;
  tool: string;
  arguments: { input: Record<string, unknown>; diff?: string };
  summary: string;
  status: string;
  result: unknown;
  error: string;
  created_at: Date;
  decided_at: Date | null;
}

function actionBody(a: ActionRow) {
  return {
    id: a.id,
    tool: a.tool,
    summary: a.summary,
    arguments: a.arguments.input,
    ...(a.arguments.diff !== undefined ? { diff: a.arguments.diff } : {}),
    status: a.status,
    ...(a.result !== null && a.result !== undefined ? { result: a.result } : {}),
    ...(a.error ? { error: a.error } : {}),
    created_at: a.created_at.toISOString(),
    decided_at: a.decided_at?.toISOString() ?? null,
  };
}

/**
 * Why a base URL is refused, if it is. Credentials in it are refused: the
 * settings are readable by every viewer (getAIProvider is a read), so the key
 * goes only in `api_key` or `api_key_secret`.
 */
function baseUrlProblem(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return 'must be an http(s) URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL';
  if (u.username || u.password) return 'must not hold credentials (user:password@): give the key as api_key or api_key_secret';
  return undefined;
}

export function aiHandlers(deps: AIRouteDeps): OperationHandlers<AuthPrincipal> {
  const pool: pg.Pool = deps.db.pool;
  const providers = new AIProviderStore({ pool, masterKeys: deps.masterKeys });

  const requireProvider = async (): Promise<ProviderSettings> => {
    try {
      const s = await providers.settings();
      if (!s) throw aiDisabled();
      return s;
    } catch (err) {
      throw secretHttpError(err);
    }
  };

  /** The caller's own conversation, else 404 (another user's conversation does not exist for them). */
  const ownConversation = async (ctx: Ctx) => {
    const id = String(ctx.params.conversationId);
    const r = await pool.query<{ id: string; title: string; created_at: Date; updated_at: Date }>(`SELECT id, title, created_at, updated_at FROM ai_conversations WHERE id = $1 AND user_id = $2`, [id, ctx.principal!.userId]);
    if (!r.rows[0]) throw notFound(`no conversation ${id}`);
    return r.rows[0];
  };

  const pendingAction = async (ctx: Ctx) => {
    const conv = await ownConversation(ctx);
    const a = (await pool.query<ActionRow>(`SELECT * FROM ai_pending_actions WHERE id = $1 AND conversation_id = $2`, [String(ctx.params.actionId), conv.id])).rows[0];
    if (!a) throw notFound(`no action ${String(ctx.params.actionId)}`);
    if (a.status !== 'pending') throw conflict('conflict', `the action was already decided (${a.status})`);
    return a;
  };

  /**
   * A confirmed save_flow: lines the model copied masked get their real text
   * back from the file as it is now (restoreMaskedLines); one that cannot be
   * restored refuses the save (409), also when the file changed since.
   */
  const restoredSave = async (ctx: Ctx, input: Record<string, unknown>, from: Parameters<Invoke>[3]) => {
    let before = '';
    try {
      const r = await deps.invoke('getFile', ctx.principal!, { params: { namespace: input.namespace }, query: { path: input.path } }, from);
      before = String((r.body as { content?: string }).content ?? '');
    } catch {
      // A new file.
    }
    const masker = await new ToolResultMasker({ pool, masterKeys: deps.masterKeys, log: deps.log }).masker(input);
    const restored = restoreMaskedLines(before, String(input.content ?? ''), masker);
    if (restored.unresolved.length) throw conflict('conflict', unresolvedMaskMessage(String(input.path ?? ''), restored.unresolved));
    return { ...input, content: restored.content };
  };

  const providerBody = async () => {
    const p = await providers.get();
    if (!p) return undefined;
    return { type: p.type, model: p.model, base_url: p.baseUrl, has_api_key: p.hasApiKey, ...(p.apiKeySecret ? { api_key_secret: p.apiKeySecret } : {}), auto_triage: p.autoTriage, updated_at: p.updatedAt.toISOString() };
  };

  const testSettings = async (s: ProviderSettings) => {
    try {
      const out = await chatModel(s).chat({ messages: [{ role: 'user', content: 'Reply with the single word: ok' }], maxTokens: 16 });
      return { ok: true, model: s.model, reply: out.text.slice(0, 200) };
    } catch (err) {
      // The provider's message, never the key: SDK errors do not carry it.
      return { ok: false, model: s.model, error: String((err as Error)?.message ?? err).slice(0, 500) };
    }
  };

  return {
    async getAIStatus() {
      const p = await providers.get();
      return { enabled: !!p, provider: p?.type ?? null, model: p?.model ?? null, auto_triage: p?.autoTriage ?? false };
    },

    async getAIProvider() {
      const b = await providerBody();
      if (!b) throw notFound('no AI provider is configured');
      return b;
    },

    async putAIProvider(ctx: Ctx) {
      const b = ctx.body as { type: string; model: string; base_url?: string; api_key?: string | null; api_key_secret?: string; auto_triage?: boolean };
      const problems = [];
      if (!isProviderType(b.type)) problems.push({ field: 'type', message: `must be one of ${PROVIDER_TYPES.join(', ')}` });
      const urlProblem = baseUrlProblem(b.base_url);
      if (urlProblem) problems.push({ field: 'base_url', message: urlProblem });
      if (b.api_key !== undefined && b.api_key !== null && typeof b.api_key !== 'string') problems.push({ field: 'api_key', message: 'must be a string' });
      if (b.auto_triage !== undefined && typeof b.auto_triage !== 'boolean') problems.push({ field: 'auto_triage', message: 'must be a boolean' });
      if (problems.length) throw validationFailed(problems);
      const now = deps.now();
      try {
        await providers.put({ type: b.type as (typeof PROVIDER_TYPES)[number], model: b.model, baseUrl: b.base_url ?? '', ...(b.api_key !== undefined ? { apiKey: b.api_key } : {}), ...(b.api_key_secret ? { apiKeySecret: b.api_key_secret } : {}), ...(b.auto_triage !== undefined ? { autoTriage: b.auto_triage } : {}), by: ctx.principal!.userId });
      } catch (err) {
        throw secretHttpError(err);
      }
      await recordAudit(pool, { action: 'ai_provider.put', ...auditContext(ctx), targetType: 'ai_provider', targetId: 'default', details: { type: b.type, model: b.model, base_url: b.base_url ?? '', api_key_changed: b.api_key !== undefined }, at: now });
      return (await providerBody())!;
    },

    async deleteAIProvider(ctx: Ctx) {
      const gone = await providers.delete();
      if (gone) await recordAudit(pool, { action: 'ai_provider.delete', ...auditContext(ctx), targetType: 'ai_provider', targetId: 'default', at: deps.now() });
      return reply(204);
    },

    async testAIProvider(ctx: Ctx) {
      const b = ctx.body as { type?: string; model?: string; base_url?: string; api_key?: string } | undefined;
      if (b?.type && b.model) {
        if (!isProviderType(b.type)) throw validationFailed([{ field: 'type', message: `must be one of ${PROVIDER_TYPES.join(', ')}` }]);
        const urlProblem = baseUrlProblem(b.base_url);
        if (urlProblem) throw validationFailed([{ field: 'base_url', message: urlProblem }]);
        // Settings given: tried as they are (the stored key when none is given), nothing is saved.
        const stored = await providers.settings().catch(() => undefined);
        return testSettings({ type: b.type, model: b.model, baseUrl: b.base_url ?? '', apiKey: b.api_key ?? stored?.apiKey ?? '' });
      }
      return testSettings(await requireProvider());
    },

    async listAIConversations(ctx: Ctx) {
      const { limit } = ctx.query as { limit: number };
      const after = ctx.cursor as { updated_at: string; id: string } | undefined;
      const r = await pool.query<{ id: string; title: string; created_at: Date; updated_at: Date }>(
        `SELECT id, title, created_at, updated_at FROM ai_conversations WHERE user_id = $1
           AND ($2::timestamptz IS NULL OR (updated_at, id) < ($2, $3)) ORDER BY updated_at DESC, id DESC LIMIT $4`,
        [ctx.principal!.userId, after?.updated_at ?? null, after?.id ?? null, limit + 1],
      );
      const page = r.rows.slice(0, limit);
      const last = page[page.length - 1];
      return { items: page.map((c) => conversationBody(c)), ...(r.rows.length > limit && last ? { next_cursor: encodeCursor({ updated_at: last.updated_at.toISOString(), id: last.id }) } : {}) };
    },

    async createAIConversation(ctx: Ctx) {
      await requireProvider();
      const b = (ctx.body ?? {}) as { title?: string };
      const r = await pool.query<{ id: string; title: string; created_at: Date; updated_at: Date }>(
        `INSERT INTO ai_conversations (id, user_id, title) VALUES ($1, $2, $3) RETURNING id, title, created_at, updated_at`,
        [newId(), ctx.principal!.userId, b.title ?? ''],
      );
      return reply(201, conversationBody(r.rows[0]!, [], []));
    },

    async getAIConversation(ctx: Ctx) {
      const c = await ownConversation(ctx);
      const messages = await pool.query<{ id: string; seq: number; role: string; content: string; parts: unknown; model: string; created_at: Date }>(
        `SELECT id, seq, role, content, parts, model, created_at FROM ai_messages WHERE conversation_id = $1 ORDER BY seq`,
        [c.id],
      );
      const actions = await pool.query<ActionRow>(`SELECT * FROM ai_pending_actions WHERE conversation_id = $1 ORDER BY created_at, id`, [c.id]);
      // Tool results, diffs and action results were masked when stored; masked again for a secret made since.
      const mask = await new ToolResultMasker({ pool, masterKeys: deps.masterKeys, log: deps.log }).masker();
      return conversationBody(
        c,
        messages.rows.map((m) => ({ id: m.id, seq: m.seq, role: m.role, content: m.content, parts: m.role === 'tool' ? mask.value(m.parts) : m.parts, model: m.model, created_at: m.created_at.toISOString() })),
        actions.rows.map((a) => {
          const b = actionBody(a);
          return { ...b, ...(b.diff !== undefined ? { diff: mask.text(b.diff) } : {}), ...('result' in b ? { result: mask.value(b.result) } : {}) };
        }),
      );
    },

    async deleteAIConversation(ctx: Ctx) {
      const c = await ownConversation(ctx);
      await pool.query(`DELETE FROM ai_conversations WHERE id = $1`, [c.id]);
      return reply(204);
    },

    async sendAIMessage(ctx: Ctx) {
      const c = await ownConversation(ctx);
      const settings = await requireProvider();
      const { content } = ctx.body as { content: string };
      if (!c.title) await pool.query(`UPDATE ai_conversations SET title = $2 WHERE id = $1`, [c.id, content.slice(0, 80)]);
      const sse = new SseWriter(ctx.res, deps.signal ? { signal: deps.signal } : {});
      sse.open();
      await runTurn(
        {
          pool,
          invoke: deps.invoke,
          model: chatModel(settings),
          principal: ctx.principal!,
          from: { req: ctx.req, requestId: ctx.requestId, log: ctx.log },
          send: (event, data) => {
            // Writes keep their order; a slow client only delays its own stream.
            if (!sse.closed) void sse.write(sseEvent(event, JSON.stringify(data)));
          },
          signal: sse.signal,
          masker: new ToolResultMasker({ pool, masterKeys: deps.masterKeys, log: deps.log }),
        },
        c.id,
        content,
      );
      sse.end();
    },

    async confirmAIAction(ctx: Ctx) {
      const a = await pendingAction(ctx);
      const tool = toolByName(a.tool);
      if (!tool || tool.kind !== 'action') throw conflict('conflict', `unknown action ${a.tool}`);
      // Claimed first, so two confirmations cannot both run it.
      const claimed = await pool.query(`UPDATE ai_pending_actions SET status = 'confirmed', decided_at = now(), decided_by = $2 WHERE id = $1 AND status = 'pending'`, [a.id, ctx.principal!.userId]);
      if (!claimed.rowCount) throw conflict('conflict', 'the action was already decided');
      const audit = (outcome: string, extra: Record<string, unknown>) =>
        recordAudit(pool, { action: 'ai.action.confirm', ...auditContext(ctx), targetType: 'ai_action', targetId: a.id, details: { conversation_id: a.conversation_id, tool: a.tool, summary: a.summary, outcome, ...extra }, at: deps.now() });
      const from = { req: ctx.req, requestId: ctx.requestId, log: ctx.log };
      try {
        const input = a.tool === 'save_flow' ? await restoredSave(ctx, a.arguments.input, from) : a.arguments.input;
        const r = await deps.invoke(tool.operationId, ctx.principal!, tool.toInput(input), from);
        // Stored with the conversation: masked like every tool result.
        const result = await new ToolResultMasker({ pool, masterKeys: deps.masterKeys, log: deps.log }).value(r.body, a.arguments.input);
        await pool.query(`UPDATE ai_pending_actions SET status = 'succeeded', result = $2 WHERE id = $1`, [a.id, JSON.stringify(result)]);
        await audit('succeeded', {});
        return { id: a.id, tool: a.tool, status: 'succeeded', result };
      } catch (err) {
        const e = asHttpError(err);
        await pool.query(`UPDATE ai_pending_actions SET status = 'failed', error = $2 WHERE id = $1`, [a.id, `${e.code}: ${e.message}`]);
        await audit('failed', { error: e.code });
        throw e;
      }
    },

    async rejectAIAction(ctx: Ctx) {
      const a = await pendingAction(ctx);
      const r = await pool.query(`UPDATE ai_pending_actions SET status = 'rejected', decided_at = now(), decided_by = $2 WHERE id = $1 AND status = 'pending'`, [a.id, ctx.principal!.userId]);
      if (!r.rowCount) throw conflict('conflict', 'the action was already decided');
      return { ok: true };
    },

    async listExecutionInsights(ctx: Ctx) {
      const id = String(ctx.params.executionId);
      const e = await pool.query(`SELECT 1 FROM executions WHERE id = $1`, [id]);
      if (!e.rowCount) throw notFound(`no execution ${id}`, 'execution_not_found');
      const { limit } = ctx.query as { limit: number };
      const after = ctx.cursor as { created_at: string; id: string } | undefined;
      const rows = await insightsOf(pool, id, limit, after);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return { items: page.map(insightBody), ...(rows.length > limit && last ? { next_cursor: encodeCursor({ created_at: last.created_at.toISOString(), id: last.id }) } : {}) };
    },

    async requestTriage(ctx: Ctx) {
      const id = String(ctx.params.executionId);
      const e = (await pool.query<{ state: string }>(`SELECT state FROM executions WHERE id = $1`, [id])).rows[0];
      if (!e) throw notFound(`no execution ${id}`, 'execution_not_found');
      await requireProvider();
      if (!TRIAGE_STATES.has(e.state)) throw conflict('conflict', `only FAILED or TIMED_OUT executions are triaged; this one is ${e.state}`);
      const insight = await createInsight(pool, id, ctx.principal!.userId);
      const run = runTriage({ pool, masterKeys: deps.masterKeys, providers, log: deps.log }, insight.id, id).finally(() => deps.background.delete(run));
      deps.background.add(run);
      return reply(202, insightBody(insight));
    },
  };
}
