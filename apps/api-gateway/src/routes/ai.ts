// The AI assistant, its provider and triage: provider settings (changed by
// an admin, read by every viewer like every GET of the role table, as
// docs/using/ai-and-mcp.md says under "Who sees the provider"; the API key write-only, sealed, no credential in base_url), the status every viewer may read, the own
// conversations with their streamed turns, confirming or rejecting the
// actions the assistant proposed (run with the confirming user's role, and
// audited), and the triage insights of failed executions. Everything but the
// status, the reads of existing conversations and insights, and the provider
// settings themselves answers 409 `ai_disabled` while no provider is set.
import type pg from 'pg';
import {
  AIProviderStore,
  argText,
  chatModel,
  ConversationStore,
  createInsight,
  insightBody,
  insightsOf,
  isProviderType,
  NO_SCOPE,
  PROVIDER_TYPES,
  runTriage,
  scopeOfInput,
  ToolResultMasker,
  TRIAGE_STATES,
  unresolvedMaskMessage,
  type ActionRow,
  type AIUsage,
  type ConversationRow,
  type MessageRow,
  type ProviderSettings,
} from '@svc/ai';
import type { Db } from '@svc/db';
import type { Engine } from '@svc/engine';
import { conflict, notFound, reply, validationFailed, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import type { MasterKey } from '@svc/config';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import { secretHttpError } from './secrets.js';
import { restoreProposedSave, runTurn, type Part } from '../ai/assistant.js';
import { asHttpError, type Invoke } from '../ai/invoke.js';
import { toolByName } from '../ai/tools.js';
import { sseEvent, SseWriter } from '../live/sse.js';
import type { Answer, Schemas } from '@svc/api-spec';

export interface AIRouteDeps {
  db: Db;
  /** Whether an execution exists and its state (the engine owns executions). */
  engine: { executions: Pick<Engine['executions'], 'stateOf'> };
  masterKeys: readonly MasterKey[];
  now: () => Date;
  invoke: Invoke;
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown };
  /** Background work (triage) in flight; the gateway waits for it on close. */
  background: Set<Promise<unknown>>;
  /** Ends open turns when the gateway stops. */
  signal?: AbortSignal;
  /** Daily AI limits (SVC_AI_*_PER_DAY): turns and triages take a request, model calls add tokens. */
  usage: AIUsage;
}

export const aiDisabled = () => conflict('ai_disabled', 'AI is disabled: no AI provider is configured (PUT /api/v1/ai/provider)');

function conversationBody(r: ConversationRow, messages?: Schemas['AIMessage'][], actions?: Schemas['AIAction'][]): Schemas['AIConversation'] {
  return {
    id: r.id,
    title: r.title,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    ...(messages ? { messages } : {}),
    ...(actions ? { actions } : {}),
  };
}

/** What a pending action stores in `arguments`: the tool's input, and the diff shown for a save. */
const actionArgs = (a: ActionRow) => a.arguments as { input: Record<string, unknown>; diff?: string };

/** A message's parts as the turn stored them (assistant.ts writes Part[]). */
const partsOf = (m: MessageRow): Part[] => (Array.isArray(m.parts) ? (m.parts as unknown as Part[]) : []);

/**
 * A stored part as the API shows it (AIMessagePart): its declared fields only. A tool result's
 * `scope` (the namespaces and executions its call read) is bookkeeping of the masking of stored
 * results (masking.ts): kept in the row, never sent.
 */
function partBody(p: Part, content?: string): Schemas['AIMessagePart'] {
  return p.type === 'tool_call'
    ? { type: p.type, id: p.id, name: p.name, arguments: p.arguments }
    : { type: p.type, tool_call_id: p.tool_call_id, name: p.name, content: content ?? p.content };
}

function actionBody(a: ActionRow): Schemas['AIAction'] {
  const args = actionArgs(a);
  return {
    id: a.id,
    tool: a.tool,
    summary: a.summary,
    arguments: args.input,
    ...(args.diff !== undefined ? { diff: args.diff } : {}),
    // Written by the store only as one of these (ai_pending_actions.status).
    status: a.status as Schemas['AIActionStatus'],
    ...(a.result !== null && a.result !== undefined ? { result: a.result } : {}),
    ...(a.error ? { error: a.error } : {}),
    created_at: a.createdAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
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

/** Types that have no endpoint of their own: without a base URL the OpenAI SDK would send to api.openai.com. */
const NEEDS_BASE_URL = new Set(['ollama', 'openai_compatible']);

/** A YYYY-MM-DD that names a real UTC day (not 2026-02-30 nor 2026-13-01). */
const isCalendarDay = (day: string): boolean => {
  const t = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 10) === day;
};

function missingBaseUrl(type: string, baseUrl: string | undefined) {
  return NEEDS_BASE_URL.has(type) && !baseUrl ? { field: 'base_url', message: `is required for type ${type} (without it, requests would go to the OpenAI endpoint)` } : undefined;
}

/** Where requests of these settings go: the base URL, else the SDK's default endpoint of the type. */
export function endpointOf(type: string, baseUrl: string): string {
  return (baseUrl || (type === 'anthropic' ? 'https://api.anthropic.com' : 'https://api.openai.com/v1')).replace(/\/+$/, '');
}

export function aiHandlers(deps: AIRouteDeps) {
  const pool: pg.Pool = deps.db.pool;
  const conversations = new ConversationStore(pool, deps.db.prisma);
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
  const ownConversation = async (ctx: { params: { conversationId: string }; principal: AuthPrincipal }) => {
    const id = ctx.params.conversationId;
    const c = await conversations.own(ctx.principal.userId, id);
    if (!c) throw notFound(`no conversation ${id}`);
    return c;
  };

  const pendingAction = async (ctx: { params: { conversationId: string; actionId: string }; principal: AuthPrincipal }) => {
    const conv = await ownConversation(ctx);
    const a = await conversations.action(conv.id, ctx.params.actionId);
    if (!a) throw notFound(`no action ${ctx.params.actionId}`);
    if (a.status !== 'pending') throw conflict('conflict', `the action was already decided (${a.status})`);
    return a;
  };

  const providerBody = async () => {
    const p = await providers.get();
    if (!p) return undefined;
    return {
      type: p.type,
      model: p.model,
      base_url: p.baseUrl,
      has_api_key: p.hasApiKey,
      ...(p.apiKeySecret ? { api_key_secret: p.apiKeySecret } : {}),
      auto_triage: p.autoTriage,
      updated_at: p.updatedAt.toISOString(),
    } satisfies Answer<'getAIProvider'>;
  };

  const testSettings = async (s: ProviderSettings) => {
    try {
      const out = await chatModel(s).chat({ messages: [{ role: 'user', content: 'Reply with the single word: ok' }], maxTokens: 16 });
      return { ok: true, model: s.model, reply: out.text.slice(0, 200) } satisfies Answer<'testAIProvider'>;
    } catch (err) {
      // The provider's message, never the key: SDK errors do not carry it.
      return { ok: false, model: s.model, error: String((err as Error)?.message ?? err).slice(0, 500) } satisfies Answer<'testAIProvider'>;
    }
  };

  return {
    async getAIStatus() {
      const p = await providers.get();
      return { enabled: !!p, provider: p?.type ?? null, model: p?.model ?? null, auto_triage: p?.autoTriage ?? false } satisfies Answer<'getAIStatus'>;
    },

    async getAIProvider() {
      const b = await providerBody();
      if (!b) throw notFound('no AI provider is configured');
      return b;
    },

    async putAIProvider(ctx) {
      const b = ctx.body;
      const problems = [];
      const type = isProviderType(b.type) ? b.type : undefined;
      if (type === undefined) problems.push({ field: 'type', message: `must be one of ${PROVIDER_TYPES.join(', ')}` });
      const urlProblem = baseUrlProblem(b.base_url);
      if (urlProblem) problems.push({ field: 'base_url', message: urlProblem });
      const noBase = missingBaseUrl(b.type, b.base_url);
      if (noBase) problems.push(noBase);
      if (b.api_key !== undefined && b.api_key !== null && typeof b.api_key !== 'string') problems.push({ field: 'api_key', message: 'must be a string' });
      if (b.auto_triage !== undefined && typeof b.auto_triage !== 'boolean') problems.push({ field: 'auto_triage', message: 'must be a boolean' });
      // A type it does not know is among the problems.
      if (problems.length || type === undefined) throw validationFailed(problems);
      const now = deps.now();
      try {
        await providers.put({
          type,
          model: b.model,
          baseUrl: b.base_url ?? '',
          ...(b.api_key !== undefined ? { apiKey: b.api_key } : {}),
          ...(b.api_key_secret ? { apiKeySecret: b.api_key_secret } : {}),
          ...(b.auto_triage !== undefined ? { autoTriage: b.auto_triage } : {}),
          by: ctx.principal.userId,
        });
      } catch (err) {
        throw secretHttpError(err);
      }
      await recordAudit(pool, {
        action: 'ai_provider.put',
        ...auditContext(ctx),
        targetType: 'ai_provider',
        targetId: 'default',
        details: { type: b.type, model: b.model, base_url: b.base_url ?? '', api_key_changed: b.api_key !== undefined },
        at: now,
      });
      return (await providerBody())!;
    },

    async deleteAIProvider(ctx) {
      const gone = await providers.delete();
      if (gone) await recordAudit(pool, { action: 'ai_provider.delete', ...auditContext(ctx), targetType: 'ai_provider', targetId: 'default', at: deps.now() });
      return reply(204);
    },

    async testAIProvider(ctx) {
      const b = ctx.body;
      if (b?.type && b.model) {
        if (!isProviderType(b.type)) throw validationFailed([{ field: 'type', message: `must be one of ${PROVIDER_TYPES.join(', ')}` }]);
        const urlProblem = baseUrlProblem(b.base_url);
        if (urlProblem) throw validationFailed([{ field: 'base_url', message: urlProblem }]);
        const noBase = missingBaseUrl(b.type, b.base_url);
        if (noBase) throw validationFailed([noBase]);
        // Settings given: tried as they are, nothing is saved. The stored key is used only
        // when none is given and the requests go where the stored settings send them: an
        // admin's test must not send it to another server.
        let apiKey = b.api_key;
        if (apiKey === undefined) {
          const stored = await providers.settings().catch(() => undefined);
          if (stored?.apiKey && endpointOf(stored.type, stored.baseUrl) !== endpointOf(b.type, b.base_url ?? '')) {
            throw validationFailed([
              { field: 'api_key', message: "is required when base_url differs from the stored provider's: the stored key is sent only to the stored base URL" },
            ]);
          }
          apiKey = stored?.apiKey ?? '';
        }
        return testSettings({ type: b.type, model: b.model, baseUrl: b.base_url ?? '', apiKey: apiKey ?? '' });
      }
      return testSettings(await requireProvider());
    },

    async listAIConversations(ctx) {
      const { limit } = ctx.query;
      // Newest first; the cursor is the last (updated_at, id) shown.
      const rows = await conversations.page(ctx.principal.userId, limit, ctx.cursor);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map((c) => conversationBody(c)),
        ...(rows.length > limit && last ? { next_cursor: ctx.encodeCursor({ updated_at: last.updatedAt.toISOString(), id: last.id }) } : {}),
      } satisfies Answer<'listAIConversations'>;
    },

    async createAIConversation(ctx) {
      await requireProvider();
      const b = ctx.body ?? {};
      const c = await conversations.create(ctx.principal.userId, b.title ?? '');
      return reply(201, conversationBody(c, [], []) satisfies Answer<'createAIConversation', 201>);
    },

    async getAIConversation(ctx) {
      const c = await ownConversation(ctx);
      const messages = await conversations.messages(c.id);
      const actions = await conversations.actions(c.id);
      // Tool results, diffs and action results were masked when stored; masked again for a secret made
      // since, each with the scope of its own call (masking.ts), never with every stored secret.
      const mask = new ToolResultMasker({ pool, masterKeys: deps.masterKeys, log: deps.log });
      const maskParts = (parts: Part[]) =>
        Promise.all(parts.map(async (p) => (p.type === 'tool_result' ? partBody(p, await mask.stored(p.content, p.scope, toolByName(p.name)?.operationId)) : partBody(p))));
      return conversationBody(
        c,
        await Promise.all(
          messages.map(async (m): Promise<Schemas['AIMessage']> => ({
            id: m.id,
            seq: m.seq,
            // The turn writes only these roles (assistant.ts).
            role: m.role as Schemas['AIMessage']['role'],
            content: m.content,
            parts: m.role === 'tool' ? await maskParts(partsOf(m)) : partsOf(m).map((p) => partBody(p)),
            model: m.model,
            created_at: m.createdAt.toISOString(),
          })),
        ),
        await Promise.all(
          actions.map(async (a) => {
            const b = actionBody(a);
            const t = toolByName(a.tool);
            const scope = t ? scopeOfInput(t.toInput(b.arguments)) : NO_SCOPE;
            return {
              ...b,
              ...(b.diff !== undefined ? { diff: await mask.text(b.diff, scope) } : {}),
              ...('result' in b ? { result: await mask.value(b.result, scope, t?.operationId) } : {}),
            };
          }),
        ),
      );
    },

    async deleteAIConversation(ctx) {
      const c = await ownConversation(ctx);
      await conversations.delete(c.id);
      return reply(204);
    },

    async sendAIMessage(ctx) {
      const c = await ownConversation(ctx);
      const settings = await requireProvider();
      const { content } = ctx.body;
      // 429 before the stream opens when a daily limit is reached.
      await deps.usage.take(ctx.principal.userId);
      if (!c.title) await conversations.setTitle(c.id, content.slice(0, 80));
      const sse = new SseWriter(ctx.res, deps.signal ? { signal: deps.signal } : {});
      sse.open();
      await runTurn(
        {
          pool,
          conversations,
          invoke: deps.invoke,
          model: chatModel(settings),
          principal: ctx.principal,
          from: { req: ctx.req, requestId: ctx.requestId, log: ctx.log },
          send: (event, data) => {
            // Writes keep their order; a slow client only delays its own stream.
            if (!sse.closed) void sse.write(sseEvent(event, JSON.stringify(data)));
          },
          signal: sse.signal,
          masker: new ToolResultMasker({ pool, masterKeys: deps.masterKeys, log: deps.log }),
          usage: deps.usage,
        },
        c.id,
        content,
      );
      sse.end();
    },

    async confirmAIAction(ctx) {
      const a = await pendingAction(ctx);
      const tool = toolByName(a.tool);
      if (!tool || tool.kind !== 'action') throw conflict('conflict', `unknown action ${a.tool}`);
      // Claimed first, so two confirmations cannot both run it.
      if (!(await conversations.decide(a.id, 'confirmed', ctx.principal.userId, deps.now()))) throw conflict('conflict', 'the action was already decided');
      const audit = (outcome: string, extra: Record<string, unknown>) =>
        recordAudit(pool, {
          action: 'ai.action.confirm',
          ...auditContext(ctx),
          targetType: 'ai_action',
          targetId: a.id,
          details: { conversation_id: a.conversationId, tool: a.tool, summary: a.summary, outcome, ...extra },
          at: deps.now(),
        });
      const from = { req: ctx.req, requestId: ctx.requestId, log: ctx.log };
      const args = actionArgs(a).input;
      try {
        // One masker for the confirmation, with the scope of the action's arguments.
        const scoped = new ToolResultMasker({ pool, masterKeys: deps.masterKeys, log: deps.log });
        const scope = scopeOfInput(tool.toInput(args));
        const masker = await scoped.masker(scope);
        let input = args;
        if (a.tool === 'save_flow') {
          // Lines copied masked get their real text back from the file as it
          // is now; one that cannot be restored refuses the save (409), also
          // when the file changed since the proposal.
          const restored = await restoreProposedSave(deps.invoke, ctx.principal, from, masker, args);
          if (restored.unresolved.length) throw conflict('conflict', unresolvedMaskMessage(argText(args.path), restored.unresolved));
          input = { ...args, content: restored.content };
        }
        const r = await deps.invoke(tool.operationId, ctx.principal, tool.toInput(input), from);
        // Stored with the conversation: masked like every tool result.
        const result = await scoped.value(r.body, scope, tool.operationId);
        await conversations.finish(a.id, { result });
        await audit('succeeded', {});
        return { id: a.id, tool: a.tool, status: 'succeeded', result } satisfies Answer<'confirmAIAction'>;
      } catch (err) {
        const e = asHttpError(err);
        await conversations.finish(a.id, { error: `${e.code}: ${e.message}` });
        await audit('failed', { error: e.code });
        throw e;
      }
    },

    async rejectAIAction(ctx) {
      const a = await pendingAction(ctx);
      if (!(await conversations.decide(a.id, 'rejected', ctx.principal.userId, deps.now()))) throw conflict('conflict', 'the action was already decided');
      return { ok: true } satisfies Answer<'rejectAIAction'>;
    },

    async getAIUsage(ctx) {
      const { day } = ctx.query;
      // The pattern lets through days no calendar has (2026-02-30, 2026-13-01): refused here, not as a 500 from the database.
      if (day !== undefined && !isCalendarDay(day)) throw validationFailed([{ field: 'day', message: 'is not a day of the calendar (YYYY-MM-DD)' }]);
      return deps.usage.report(day);
    },

    async listExecutionInsights(ctx) {
      const id = String(ctx.params.executionId);
      if (!(await deps.engine.executions.stateOf(id))) throw notFound(`no execution ${id}`, 'execution_not_found');
      const { limit } = ctx.query;
      const rows = await insightsOf(pool, id, limit, ctx.cursor);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map(insightBody),
        ...(rows.length > limit && last ? { next_cursor: ctx.encodeCursor({ created_at: last.createdKey, id: last.id }) } : {}),
      } satisfies Answer<'listExecutionInsights'>;
    },

    async requestTriage(ctx) {
      const id = String(ctx.params.executionId);
      const state = await deps.engine.executions.stateOf(id);
      if (!state) throw notFound(`no execution ${id}`, 'execution_not_found');
      await requireProvider();
      if (!TRIAGE_STATES.has(state)) throw conflict('conflict', `only FAILED or TIMED_OUT executions are triaged; this one is ${state}`);
      await deps.usage.take(ctx.principal.userId);
      const insight = await createInsight(pool, id, ctx.principal.userId);
      const run = runTriage({ pool, masterKeys: deps.masterKeys, providers, log: deps.log, usage: deps.usage }, insight.id, id, ctx.principal.userId).finally(() =>
        deps.background.delete(run),
      );
      deps.background.add(run);
      return reply(202, insightBody(insight));
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
