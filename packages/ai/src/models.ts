// The AI provider: its one settings row (ai_provider, id 'default'; absent =
// AI disabled; read and written by provider.ts), the API key sealed with the
// master keys like a secret, and a provider-neutral chat call over the
// official SDKs (openai for OpenAI and OpenAI-compatible servers,
// @anthropic-ai/sdk for Anthropic). The key is opened only to build a client;
// it is never returned, logged or audited.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type pg from 'pg';
import { deleteProvider, enabledProvider, putProvider, type ProviderSettingsRow } from './provider.js';
import type { MasterKey } from '@svc/config';
import { openText, seal, SecretStore } from '@svc/secrets';

export const PROVIDER_TYPES = ['openai', 'openai_compatible', 'ollama', 'anthropic'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];
export const isProviderType = (t: string): t is ProviderType => (PROVIDER_TYPES as readonly string[]).includes(t);

const aad = 'svc/ai-provider/v1\0default';

export interface ProviderRow {
  type: ProviderType;
  model: string;
  baseUrl: string;
  hasApiKey: boolean;
  /** Key of a global secret (or a provider reference) holding the API key, instead of a stored key. */
  apiKeySecret: string;
  autoTriage: boolean;
  updatedAt: Date;
}

export interface ProviderSettings {
  type: ProviderType;
  model: string;
  baseUrl: string;
  apiKey: string;
}

type Row = ProviderSettingsRow;
const settingsOf = (r: Row) => (r.settings ?? {}) as { api_key_secret?: string };

export class AIProviderStore {
  constructor(private readonly deps: { pool: pg.Pool; masterKeys: readonly MasterKey[] }) {}

  private row(): Promise<Row | undefined> {
    return enabledProvider(this.deps.pool);
  }

  async get(): Promise<ProviderRow | undefined> {
    const r = await this.row();
    if (!r) return undefined;
    return {
      type: r.type as ProviderType,
      model: r.model,
      baseUrl: r.baseUrl,
      hasApiKey: r.apiKeyCiphertext !== null,
      apiKeySecret: settingsOf(r).api_key_secret ?? '',
      autoTriage: r.autoTriage,
      updatedAt: r.updatedAt,
    };
  }

  /**
   * Writes the settings. `apiKey` undefined keeps the stored key, null removes it.
   * @throws BuiltinProviderDisabledError when a key is given and SVC_MASTER_KEYS is empty.
   */
  async put(p: { type: ProviderType; model: string; baseUrl: string; apiKey?: string | null; apiKeySecret?: string; autoTriage?: boolean; by: string }): Promise<void> {
    const sealed = typeof p.apiKey === 'string' ? seal(p.apiKey, this.deps.masterKeys, aad) : undefined;
    // The stored key stays unless a key (or its removal, null) is given.
    const key =
      p.apiKey === undefined
        ? undefined
        : { apiKeyCiphertext: sealed ? Uint8Array.from(sealed.ciphertext) : null, apiKeyNonce: sealed ? Uint8Array.from(sealed.nonce) : null, apiKeyKeyId: sealed?.keyId ?? null };
    await putProvider(this.deps.pool, {
      type: p.type,
      model: p.model,
      baseUrl: p.baseUrl,
      settings: p.apiKeySecret ? { api_key_secret: p.apiKeySecret } : {},
      updatedBy: p.by,
      ...(key ? { key } : {}),
      ...(p.autoTriage !== undefined ? { autoTriage: p.autoTriage } : {}),
    });
  }

  async delete(): Promise<boolean> {
    return deleteProvider(this.deps.pool);
  }

  /** The settings with the API key opened (stored key, else the referenced global secret); undefined when AI is disabled. */
  async settings(): Promise<ProviderSettings | undefined> {
    const r = await this.row();
    if (!r) return undefined;
    let apiKey = '';
    const secretKey = settingsOf(r).api_key_secret;
    if (r.apiKeyCiphertext && r.apiKeyNonce && r.apiKeyKeyId) {
      apiKey = openText({ ciphertext: Buffer.from(r.apiKeyCiphertext), nonce: Buffer.from(r.apiKeyNonce), keyId: r.apiKeyKeyId }, this.deps.masterKeys, aad);
    } else if (secretKey) {
      const store = SecretStore.withProviders(this.deps.pool, this.deps.masterKeys);
      apiKey = (await store.resolve('', secretKey)).value;
    }
    return { type: r.type as ProviderType, model: r.model, baseUrl: r.baseUrl, apiKey };
  }
}

// ---- the provider-neutral chat call ------------------------------------------

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text as the model wrote it. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object). */
  parameters: Record<string, unknown>;
}

export interface ChatResult {
  text: string;
  toolCalls: ToolCall[];
  inputTokens?: number;
  outputTokens?: number;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Called with each piece of text as it streams in. */
  onText?: (delta: string) => void;
  signal?: AbortSignal;
  /** Default 2048. */
  maxTokens?: number;
}

export interface ChatModel {
  readonly model: string;
  chat(req: ChatRequest): Promise<ChatResult>;
}

/** Default 60 s: a turn that waits longer on the provider ends with an error event. */
const TIMEOUT_MS = 60_000;

export function chatModel(s: ProviderSettings): ChatModel {
  return s.type === 'anthropic' ? anthropicModel(s) : openAIModel(s);
}

function openAIModel(s: ProviderSettings): ChatModel {
  const client = new OpenAI({ apiKey: s.apiKey || 'none', ...(s.baseUrl ? { baseURL: s.baseUrl } : {}), timeout: TIMEOUT_MS, maxRetries: 1 });
  return {
    model: s.model,
    async chat(req) {
      const messages = req.messages.map((m): OpenAI.Chat.Completions.ChatCompletionMessageParam => {
        switch (m.role) {
          case 'system':
          case 'user':
            return { role: m.role, content: m.content };
          case 'assistant':
            return {
              role: 'assistant',
              content: m.content || null,
              ...(m.toolCalls?.length ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) } : {}),
            };
          case 'tool':
            return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
        }
      });
      const stream = await client.chat.completions.create(
        {
          model: s.model,
          messages,
          stream: true,
          // The usage chunk at the end: the tokens counted against the daily limits (usage.ts).
          stream_options: { include_usage: true },
          max_tokens: req.maxTokens ?? 2048,
          ...(req.tools?.length
            ? { tools: req.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) }
            : {}),
        },
        { signal: req.signal },
      );
      let text = '';
      const calls = new Map<number, ToolCall>();
      let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const delta = chunk.choices?.[0]?.delta;
        if (!delta) continue;
        if (delta.content) {
          text += delta.content;
          req.onText?.(delta.content);
        }
        for (const tc of delta.tool_calls ?? []) {
          const c = calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
          if (tc.id) c.id = tc.id;
          if (tc.function?.name) c.name += tc.function.name;
          if (tc.function?.arguments) c.arguments += tc.function.arguments;
          calls.set(tc.index, c);
        }
      }
      const toolCalls = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
      return {
        text,
        toolCalls,
        ...(usage?.prompt_tokens !== undefined ? { inputTokens: usage.prompt_tokens } : {}),
        ...(usage?.completion_tokens !== undefined ? { outputTokens: usage.completion_tokens } : {}),
      };
    },
  };
}

function anthropicModel(s: ProviderSettings): ChatModel {
  const client = new Anthropic({ apiKey: s.apiKey, ...(s.baseUrl ? { baseURL: s.baseUrl } : {}), timeout: TIMEOUT_MS, maxRetries: 1 });
  return {
    model: s.model,
    async chat(req) {
      const system = req.messages
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n\n');
      const messages = anthropicMessages(req.messages);
      const stream = client.messages.stream(
        {
          model: s.model,
          max_tokens: req.maxTokens ?? 2048,
          ...(system ? { system } : {}),
          messages,
          ...(req.tools?.length ? { tools: req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as Anthropic.Tool.InputSchema })) } : {}),
        },
        { signal: req.signal },
      );
      stream.on('text', (d) => req.onText?.(d));
      const final = await stream.finalMessage();
      let text = '';
      const toolCalls: ToolCall[] = [];
      for (const b of final.content) {
        if (b.type === 'text') text += b.text;
        else if (b.type === 'tool_use') toolCalls.push({ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
      }
      return { text, toolCalls, inputTokens: final.usage.input_tokens, outputTokens: final.usage.output_tokens };
    },
  };
}

/**
 * The conversation in the shape the Messages API accepts: the results of one
 * round's tool calls all in the one user message right after the assistant's
 * tool_use blocks (results first), consecutive messages of one role merged
 * into one, no empty text block, and no empty message (an assistant turn that
 * said nothing).
 */
export function anthropicMessages(chat: readonly ChatMessage[]): Anthropic.MessageParam[] {
  const out: { role: 'user' | 'assistant'; content: Anthropic.ContentBlockParam[] }[] = [];
  const add = (role: 'user' | 'assistant', blocks: Anthropic.ContentBlockParam[]) => {
    if (!blocks.length) return;
    const last = out[out.length - 1];
    if (last?.role !== role) {
      out.push({ role, content: [...blocks] });
      return;
    }
    // Tool results stay ahead of any text of the same user message.
    const results = [...last.content, ...blocks].filter((b) => b.type === 'tool_result');
    last.content = [...results, ...[...last.content, ...blocks].filter((b) => b.type !== 'tool_result')];
  };
  for (const m of chat) {
    if (m.role === 'user') add('user', m.content ? [{ type: 'text', text: m.content }] : []);
    else if (m.role === 'assistant') {
      const blocks: Anthropic.ContentBlockParam[] = [];
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: safeJson(c.arguments) });
      add('assistant', blocks);
    } else if (m.role === 'tool') {
      add('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
    }
  }
  return out;
}

export function safeJson(s: string): Record<string, unknown> {
  try {
    const v = JSON.parse(s || '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
