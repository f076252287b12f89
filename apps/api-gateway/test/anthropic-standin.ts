// A local stand-in of the Anthropic Messages API (POST /v1/messages) on
// 127.0.0.1, as the official SDK talks to it: the API key (the `x-api-key`
// header, or `Authorization: Bearer` as @anthropic-ai/sdk 1.x sends it) and
// the `anthropic-version` header, the request checks of the real API that a
// client can get wrong (roles, non-empty content, every tool_use answered by
// a tool_result in the very next message with the results first, tool names
// and input schemas), errors in its envelope ({type: "error", error: {type,
// message}}), a non-streaming message, and a streamed one as its server-sent
// events: message_start, content_block_start / content_block_delta
// (text_delta, input_json_delta in pieces) / content_block_stop for text and
// tool_use blocks, ping, message_delta (stop_reason, usage), message_stop.
// Every request is recorded, so tests can look at what the gateway sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content?: string | { type: string; text?: string }[]; is_error?: boolean };

export interface AnthropicMessage {
  role: string;
  content: string | ContentBlock[];
}

export interface AnthropicRequest {
  apiKey: string | undefined;
  version: string | undefined;
  body: {
    model: string;
    max_tokens: number;
    stream?: boolean;
    system?: string | { type: 'text'; text: string }[];
    messages: AnthropicMessage[];
    tools?: { name: string; description?: string; input_schema: { type: string } }[];
  };
}

/** What the stand-in answers: text, tool calls, or both (text first, as Claude often writes). */
export interface AnthropicAnswer {
  text?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  /** Fail: streamed, after the text, as an `error` event (as the API does when overloaded mid-stream); else as the HTTP error. */
  error?: { type: 'overloaded_error' | 'api_error'; message: string };
}

export interface AnthropicStandin {
  /** The base URL to give the SDK (it appends /v1/messages). */
  url: string;
  requests: AnthropicRequest[];
  /** Requests the stand-in refused, with the error it answered. */
  refused: { status: number; type: string; message: string }[];
  close(): Promise<void>;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new ApiError(400, 'invalid_request_error', message);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/** The checks of the real API a client can fail; throws the error it would answer. */
function check(r: AnthropicRequest, apiKey: string | undefined): void {
  if (!r.apiKey || (apiKey !== undefined && r.apiKey !== apiKey)) throw new ApiError(401, 'authentication_error', 'invalid x-api-key');
  if (!r.version) throw invalid('anthropic-version: header is required');
  const b = r.body;
  if (typeof b.model !== 'string' || !b.model) throw invalid('model: Field required');
  if (!Number.isInteger(b.max_tokens) || b.max_tokens < 1) throw invalid('max_tokens: Field required');
  if (!Array.isArray(b.messages) || !b.messages.length) throw invalid('messages: Field required');
  if (b.system !== undefined && typeof b.system !== 'string' && !Array.isArray(b.system)) throw invalid('system: Input should be a valid string or list');
  for (const [i, t] of (b.tools ?? []).entries()) {
    if (!TOOL_NAME.test(t.name ?? '')) throw invalid(`tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    if (t.input_schema?.type !== 'object') throw invalid(`tools.${i}.input_schema.type: Input should be 'object'`);
  }
  if (b.messages[0]!.role !== 'user') throw invalid('messages: first message must use the "user" role');
  b.messages.forEach((m, i) => {
    if (m.role !== 'user' && m.role !== 'assistant') throw invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const last = i === b.messages.length - 1;
    if (typeof m.content === 'string') {
      if (!m.content && !(last && m.role === 'assistant')) throw invalid(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
      return;
    }
    if (!Array.isArray(m.content) || (!m.content.length && !(last && m.role === 'assistant')))
      throw invalid(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    m.content.forEach((c, j) => {
      if (c.type === 'text' && !c.text) throw invalid(`messages.${i}.content.${j}.text: text content blocks must be non-empty`);
      if (c.type === 'tool_use') {
        if (m.role !== 'assistant') throw invalid(`messages.${i}.content.${j}: tool_use blocks are only allowed in assistant messages`);
        if (!TOOL_USE_ID.test(c.id ?? '')) throw invalid(`messages.${i}.content.${j}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
        if (!c.input || typeof c.input !== 'object' || Array.isArray(c.input)) throw invalid(`messages.${i}.content.${j}.input: Input should be a valid dictionary`);
      }
      if (c.type === 'tool_result' && m.role !== 'user') throw invalid(`messages.${i}.content.${j}: tool_result blocks are only allowed in user messages`);
    });
    // Every tool_use is answered in the very next message, results first; every result answers a tool_use just before.
    const uses = m.role === 'assistant' ? m.content.filter((c) => c.type === 'tool_use').map((c) => (c as { id: string }).id) : [];
    const next = b.messages[i + 1];
    if (uses.length && next) {
      const blocks = typeof next.content === 'string' ? [] : next.content;
      const results = blocks.filter((c) => c.type === 'tool_result').map((c) => (c as { tool_use_id: string }).tool_use_id);
      const missing = uses.filter((id) => !results.includes(id));
      if (next.role !== 'user' || missing.length)
        throw invalid(
          `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ') || uses.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      const firstOther = blocks.findIndex((c) => c.type !== 'tool_result');
      if (firstOther !== -1 && blocks.slice(firstOther).some((c) => c.type === 'tool_result'))
        throw invalid(`messages.${i + 1}: tool_result blocks must come first in the content`);
    }
    if (m.role === 'user' && Array.isArray(m.content)) {
      const prev = b.messages[i - 1];
      const prevUses =
        prev && prev.role === 'assistant' && Array.isArray(prev.content) ? prev.content.filter((c) => c.type === 'tool_use').map((c) => (c as { id: string }).id) : [];
      for (const c of m.content) {
        if (c.type === 'tool_result' && !prevUses.includes(c.tool_use_id))
          throw invalid(
            `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${c.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
      }
    }
  });
}

/** `opts.apiKey`: the one key accepted (any non-empty key when absent). */
export async function startAnthropicStandin(decide: (req: AnthropicRequest) => AnthropicAnswer, opts: { apiKey?: string } = {}): Promise<AnthropicStandin> {
  const requests: AnthropicRequest[] = [];
  const refused: AnthropicStandin['refused'] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (data += d));
    req.on('end', () => {
      const requestId = `req_standin_${++n}`;
      const fail = (e: ApiError) => {
        refused.push({ status: e.status, type: e.type, message: e.message });
        res
          .writeHead(e.status, { 'content-type': 'application/json', 'request-id': requestId })
          .end(JSON.stringify({ type: 'error', error: { type: e.type, message: e.message }, request_id: requestId }));
      };
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') return fail(new ApiError(404, 'not_found_error', `Not found: ${req.method} ${req.url}`));
      let r: AnthropicRequest;
      try {
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        r = { apiKey: (req.headers['x-api-key'] as string | undefined) || bearer, version: req.headers['anthropic-version'] as string | undefined, body: JSON.parse(data) };
      } catch {
        return fail(invalid('The request body is not valid JSON.'));
      }
      try {
        check(r, opts.apiKey);
      } catch (e) {
        return fail(e as ApiError);
      }
      requests.push(r);
      const answer = decide(r);
      const id = `msg_standin_${n}`;
      const content: ContentBlock[] = [];
      if (answer.text) content.push({ type: 'text', text: answer.text });
      (answer.toolCalls ?? []).forEach((c, i) => content.push({ type: 'tool_use', id: `toolu_standin_${n}_${i}`, name: c.name, input: c.arguments }));
      const stopReason = answer.toolCalls?.length ? 'tool_use' : 'end_turn';
      const usage = { input_tokens: 20 + JSON.stringify(r.body.messages).length / 100, output_tokens: 7 };
      usage.input_tokens = Math.round(usage.input_tokens);
      if (answer.error && !r.body.stream) return fail(new ApiError(answer.error.type === 'overloaded_error' ? 529 : 500, answer.error.type, answer.error.message));
      if (!r.body.stream) {
        res
          .writeHead(200, { 'content-type': 'application/json', 'request-id': requestId })
          .end(JSON.stringify({ id, type: 'message', role: 'assistant', model: r.body.model, content, stop_reason: stopReason, stop_sequence: null, usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId });
      const event = (type: string, payload: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
      event('message_start', {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: r.body.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
        },
      });
      content.forEach((block, index) => {
        if (block.type === 'text') {
          event('content_block_start', { index, content_block: { type: 'text', text: '' } });
          if (index === 0) event('ping', {});
          // In a few pieces, as a real model streams.
          for (const piece of block.text.match(/.{1,12}/gs) ?? []) event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
        } else if (block.type === 'tool_use') {
          event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
          const json = JSON.stringify(block.input);
          const half = Math.ceil(json.length / 2);
          for (const partial of ['', json.slice(0, half), json.slice(half)]) event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } });
        }
        if (!answer.error) event('content_block_stop', { index });
      });
      if (answer.error) {
        event('error', { error: answer.error });
        res.end();
        return;
      }
      event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
      event('message_stop', {});
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    refused,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
