// One assistant turn of a conversation, streamed as server-sent events:
//   text           {delta}                       a piece of the answer
//   tool_call      {id, name, arguments}         the model called a tool
//   tool_result    {id, name, ok, result|error}  what the tool answered
//   action_proposed {id, tool, summary, arguments, diff?}  a change waiting for confirmAIAction
//   end            {message_id, stop_reason}     the turn is over (stop_reason: end_turn | max_rounds | error)
//   error          {code, message}               the provider failed; `end` follows
// Read tools run at once with the caller's principal; action tools are only
// stored as pending actions. Every tool result (and a proposed change's diff)
// is masked against the secret values (masking.ts) before the model, the
// event stream or the stored conversation gets it. Every message is stored,
// so a later turn (and getAIConversation) sees the whole history.
import type { Request } from 'express';
import type pg from 'pg';
import {
  AIUsageLimitError,
  argText,
  estimateTokens,
  fileDiff,
  NO_SCOPE,
  restoreMaskedLines,
  safeJson,
  scopeOfError,
  scopeOfInput,
  unresolvedMaskMessage,
  type AIUsage,
  type ChatMessage,
  type ChatModel,
  type ConversationStore,
  type MaskScope,
  type ToolCall,
  type ToolResultMasker,
} from '@svc/ai';
import type { HttpLogger } from '@svc/http';
import type { AITurnSend } from '@svc/api-spec';
import type { AuthPrincipal } from '../identity/principal.js';
import type { Invoke } from './invoke.js';
import { asHttpError } from './invoke.js';
import type { Masker } from '@svc/masking';
import { resultText, TOOLS, toolByName } from './tools.js';

/** Model calls of one turn at most (each may call tools). */
export const MAX_ROUNDS = 8;

const SYSTEM = `You are the assistant of svc, a workflow orchestration service. Flows are *.flow.yaml files in namespaces.
Use the tools to look things up instead of guessing. Tools that change something (save_flow, trigger_flow, cancel_execution,
rerun_execution, restart_execution, replay_execution) are only proposed: the user confirms or rejects them; say what you proposed.
Before proposing a flow, read the flow JSON Schema and validate the flow when you may.`;

interface MessageRow {
  id: string;
  seq: number;
  role: string;
  content: string;
  parts: Part[];
}

/** A tool result keeps the scope of its call (`scope`), so it is masked again the same way (masking.ts). */
export type Part =
  { type: 'tool_call'; id: string; name: string; arguments: string } | { type: 'tool_result'; tool_call_id: string; name: string; content: string; scope?: MaskScope };

export interface TurnDeps {
  pool: pg.Pool;
  /** Where the conversation, its messages and proposed actions are read and written. */
  conversations: ConversationStore;
  invoke: Invoke;
  model: ChatModel;
  principal: AuthPrincipal;
  from: { req: Request; requestId: string; log: HttpLogger };
  send: AITurnSend;
  signal: AbortSignal;
  /** Masks tool results against the secret values. */
  masker: ToolResultMasker;
  /** Daily limits: the turn's request was taken before it started; each model call's tokens are counted, and checked before the next. */
  usage?: AIUsage;
}

/** The stored conversation as chat messages; tool results masked again, each with its own scope (a secret made since they were stored). */
async function history(conversations: ConversationStore, conversationId: string, masker: ToolResultMasker): Promise<ChatMessage[]> {
  const rows = (await conversations.messages(conversationId)) as unknown as MessageRow[];
  const out: ChatMessage[] = [{ role: 'system', content: SYSTEM }];
  for (const r of rows) {
    if (r.role === 'user') out.push({ role: 'user', content: r.content });
    else if (r.role === 'assistant') {
      const calls = r.parts.filter((p): p is Extract<Part, { type: 'tool_call' }> => p.type === 'tool_call');
      out.push({ role: 'assistant', content: r.content, ...(calls.length ? { toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) } : {}) });
    } else if (r.role === 'tool') {
      for (const p of r.parts)
        if (p.type === 'tool_result')
          out.push({ role: 'tool', toolCallId: p.tool_call_id, name: p.name, content: await masker.stored(p.content, p.scope, toolByName(p.name)?.operationId) });
    }
  }
  return answerEveryCall(out);
}

/**
 * Every tool call followed by its result: a turn cut short between the
 * model's tool calls and their results (the gateway stopped, a write failed)
 * would otherwise leave a history both APIs refuse on every later turn.
 */
function answerEveryCall(msgs: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    out.push(m);
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < msgs.length && msgs[j].role === 'tool'; j++) answered.add((msgs[j] as { toolCallId: string }).toolCallId);
    let j = i + 1;
    while (j < msgs.length && msgs[j].role === 'tool') out.push(msgs[j++]);
    for (const c of m.toolCalls)
      if (!answered.has(c.id)) out.push({ role: 'tool', toolCallId: c.id, name: c.name, content: JSON.stringify({ error: 'no result: the turn ended before this tool ran' }) });
    i = j - 1;
  }
  return out;
}

/**
 * A save_flow proposal against the file as it is now (empty for a new file):
 * the file's text, and the proposed content with the lines the model copied
 * masked given their real text back (restoreMaskedLines). Read with the
 * caller's own rights, at the proposal (for the diff) and again at the
 * confirmation (the file may have changed since).
 */
export async function restoreProposedSave(invoke: Invoke, principal: AuthPrincipal, from: TurnDeps['from'], masker: Masker, input: Record<string, unknown>) {
  let before = '';
  try {
    const r = await invoke('getFile', principal, { params: { namespace: input.namespace }, query: { path: input.path } }, from);
    before = String((r.body as { content?: string }).content ?? '');
  } catch {
    // A new file: nothing to restore, the diff is against nothing.
  }
  return { before, ...restoreMaskedLines(before, argText(input.content), masker) };
}

/** Runs one tool call: a read runs now, an action becomes a pending action. Returns the text the model gets back. */
/** What a tool call gives back to the model, and the scope it was masked with (stored with it). */
interface ToolOutcome {
  content: string;
  scope: MaskScope;
}

async function runTool(deps: TurnDeps, conversationId: string, messageId: string, call: ToolCall): Promise<ToolOutcome> {
  const tool = toolByName(call.name);
  const args = safeJson(call.arguments);
  if (!tool) {
    deps.send('tool_result', { id: call.id, name: call.name, ok: false, error: `unknown tool ${call.name}` });
    return { content: JSON.stringify({ error: `unknown tool ${call.name}` }), scope: NO_SCOPE };
  }
  // What the operation names (its path's namespace or execution), never an argument it does not take.
  const scope = scopeOfInput(tool.toInput(args));
  if (tool.kind === 'action') {
    let diff: string | undefined;
    if (tool.name === 'save_flow') {
      // Lines the model copied as it read them (masked) are saved as they are
      // in the file; the diff is against the real file, then masked.
      const masker = await deps.masker.masker(scope);
      const restored = await restoreProposedSave(deps.invoke, deps.principal, deps.from, masker, args);
      if (restored.unresolved.length) {
        const error = { status: 409, code: 'conflict', message: unresolvedMaskMessage(argText(args.path), restored.unresolved) };
        deps.send('tool_result', { id: call.id, name: call.name, ok: false, error });
        return { content: JSON.stringify({ error }), scope };
      }
      diff = masker.text(fileDiff(argText(args.path), restored.before, restored.content));
    }
    const summary = tool.summary?.(args) ?? tool.name;
    const id = await deps.conversations.propose({ conversationId, messageId, tool: tool.name, arguments: { input: args, ...(diff !== undefined ? { diff } : {}) }, summary });
    deps.send('action_proposed', { id, tool: tool.name, summary, arguments: args, ...(diff !== undefined ? { diff } : {}) });
    const result = { proposed: true, action_id: id, status: 'pending', note: 'Not run yet: the user must confirm it.' };
    deps.send('tool_result', { id: call.id, name: call.name, ok: true, result });
    return { content: JSON.stringify(result), scope };
  }
  try {
    const r = await deps.invoke(tool.operationId, deps.principal, tool.toInput(args), deps.from);
    const body = await deps.masker.value(r.body, scope, tool.operationId);
    deps.send('tool_result', { id: call.id, name: call.name, ok: true, result: body });
    return { content: resultText(body), scope };
  } catch (err) {
    const e = asHttpError(err);
    const errorScope = scopeOfError(scope, e.status);
    const error = await deps.masker.value({ status: e.status, code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }, errorScope);
    deps.send('tool_result', { id: call.id, name: call.name, ok: false, error });
    return { content: JSON.stringify({ error }), scope: errorScope };
  }
}

export async function runTurn(deps: TurnDeps, conversationId: string, content: string): Promise<void> {
  await deps.conversations.appendMessage(conversationId, { role: 'user', content });
  const tools = TOOLS.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  let lastId = '';
  let stop = 'max_rounds';
  try {
    for (let round = 0; round < MAX_ROUNDS && !deps.signal.aborted; round++) {
      const messages = await history(deps.conversations, conversationId, deps.masker);
      if (round > 0) await deps.usage?.checkTokens(deps.principal.userId);
      const out = await deps.model.chat({ messages, tools, signal: deps.signal, onText: (delta) => deps.send('text', { delta }) });
      await deps.usage?.addTokens(
        deps.principal.userId,
        (out.inputTokens ?? estimateTokens(JSON.stringify(messages))) + (out.outputTokens ?? estimateTokens(out.text + JSON.stringify(out.toolCalls))),
      );
      const parts: Part[] = out.toolCalls.map((c) => ({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments }));
      lastId = await deps.conversations.appendMessage(conversationId, {
        role: 'assistant',
        content: out.text,
        parts,
        model: deps.model.model,
        ...(out.inputTokens !== undefined ? { inputTokens: out.inputTokens } : {}),
        ...(out.outputTokens !== undefined ? { outputTokens: out.outputTokens } : {}),
      });
      if (!out.toolCalls.length) {
        stop = 'end_turn';
        break;
      }
      const results: Part[] = [];
      for (const call of out.toolCalls) {
        deps.send('tool_call', { id: call.id, name: call.name, arguments: safeJson(call.arguments) });
        const done = await runTool(deps, conversationId, lastId, call);
        results.push({ type: 'tool_result', tool_call_id: call.id, name: call.name, content: done.content, scope: done.scope });
      }
      await deps.conversations.appendMessage(conversationId, { role: 'tool', content: '', parts: results });
    }
  } catch (err) {
    stop = 'error';
    if (err instanceof AIUsageLimitError) {
      deps.send('error', { code: err.code, message: err.message });
      deps.send('end', { message_id: lastId || null, stop_reason: stop });
      return;
    }
    // The provider's message could quote what it was sent: masked, and logged without the error object.
    const message = await deps.masker.text(String((err as Error)?.message ?? err).slice(0, 500)).catch(() => 'the assistant turn failed');
    deps.from.log.warn('assistant turn failed', { conversation_id: conversationId, error: message, error_name: (err as Error)?.name });
    deps.send('error', { code: 'provider_error', message });
  }
  deps.send('end', { message_id: lastId || null, stop_reason: stop });
}
