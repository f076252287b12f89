// What the AI tests share: API calls with a bearer token, and an assistant
// turn read whole as its server-sent events.
import assert from 'node:assert/strict';
import type { TestGateway } from './helpers.js';
import { raw, type RawResponse } from './identity-helpers.js';
import { assertConforms } from './secrets-helpers.js';

export interface TurnEvent {
  event: string;
  data: any;
}

/** Calls on the gateway `gateway()` returns (a test file's gateway starts in its `before`). */
export function aiClient(gateway: () => TestGateway) {
  const call = (token: string, method: string, path: string, body?: unknown): Promise<RawResponse> =>
    raw(
      gateway(),
      method,
      path,
      { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body === undefined ? undefined : JSON.stringify(body),
    );

  /** Sends a message and reads the whole turn: the stream as received, and its events in order. */
  async function turn(token: string, conversationId: string, content: string): Promise<{ raw: string; events: TurnEvent[] }> {
    const r = await call(token, 'POST', `/api/v1/ai/conversations/${conversationId}/messages`, { content });
    assert.equal(r.status, 200, r.body);
    assert.match(String(r.headers['content-type']), /text\/event-stream/);
    const events = r.body
      .split('\n\n')
      .filter((b) => b.includes('event:'))
      .map((b) => ({
        event: /event: (.*)/.exec(b)![1]!,
        data: JSON.parse(
          b
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n'),
        ),
      }));
    return { raw: r.body, events };
  }

  async function newConversation(token: string): Promise<string> {
    const r = await call(token, 'POST', '/api/v1/ai/conversations', { title: 't' });
    assert.equal(r.status, 201, r.body);
    assertConforms('createAIConversation', 201, r.json());
    return r.json<{ id: string }>().id;
  }

  return { call, turn, newConversation };
}
