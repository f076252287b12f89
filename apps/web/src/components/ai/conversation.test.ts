// The assistant panel's pure pieces: a conversation read the same way whether
// it was stored (resumed) or streamed. How events are cut out of a stream that
// arrives in arbitrary pieces is the API client's
// (packages/api-spec/src/client-stream.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEvent, itemsOf, type Item } from './conversation.ts';
import type { Conversation, TurnEvent } from './types.ts';

const shape = (items: Item[]) =>
  items.map((i) => {
    switch (i.kind) {
      case 'user':
      case 'assistant':
        return [i.kind, i.text];
      case 'tool':
        return [i.kind, i.name, i.done, i.result];
      case 'action':
        return [i.kind, i.action.id, i.action.status];
      case 'error':
        return [i.kind, i.code];
    }
  });

describe('a conversation as items', () => {
  const events: TurnEvent[] = [
    { event: 'text', data: { delta: 'Let me ' } },
    { event: 'text', data: { delta: 'look.' } },
    { event: 'tool_call', data: { id: 'c1', name: 'read_logs', arguments: { execution_id: 'e1' } } },
    { event: 'tool_result', data: { id: 'c1', name: 'read_logs', ok: true, result: { items: [] } } },
    { event: 'tool_call', data: { id: 'c2', name: 'cancel_execution', arguments: { execution_id: 'e1' } } },
    { event: 'action_proposed', data: { id: 'a1', tool: 'cancel_execution', summary: 'Cancel execution e1', arguments: { execution_id: 'e1' } } },
    { event: 'tool_result', data: { id: 'c2', name: 'cancel_execution', ok: true, result: { proposed: true, action_id: 'a1' } } },
    { event: 'text', data: { delta: 'Proposed.' } },
    { event: 'end', data: { message_id: 'm3', stop_reason: 'end_turn' } },
  ];
  const stored: Conversation = {
    id: 'c',
    title: 't',
    created_at: '2026-01-01T00:00:00Z',
    messages: [
      { id: 'm0', seq: 1, role: 'user', content: 'why?', parts: [], created_at: '' },
      {
        id: 'm1',
        seq: 2,
        role: 'assistant',
        content: 'Let me look.',
        parts: [
          { type: 'tool_call', id: 'c1', name: 'read_logs', arguments: '{"execution_id":"e1"}' },
          { type: 'tool_call', id: 'c2', name: 'cancel_execution', arguments: '{"execution_id":"e1"}' },
        ],
        created_at: '',
      },
      {
        id: 'm2',
        seq: 3,
        role: 'tool',
        content: '',
        parts: [
          { type: 'tool_result', tool_call_id: 'c1', name: 'read_logs', content: '{"items":[]}' },
          { type: 'tool_result', tool_call_id: 'c2', name: 'cancel_execution', content: '{"proposed":true,"action_id":"a1"}' },
        ],
        created_at: '',
      },
      { id: 'm3', seq: 4, role: 'assistant', content: 'Proposed.', parts: [], created_at: '' },
    ],
    actions: [{ id: 'a1', tool: 'cancel_execution', summary: 'Cancel execution e1', arguments: { execution_id: 'e1' }, status: 'pending', created_at: '', decided_at: null }],
  };
  const expected = [
    ['user', 'why?'],
    ['assistant', 'Let me look.'],
    ['tool', 'read_logs', true, { items: [] }],
    ['tool', 'cancel_execution', true, { proposed: true, action_id: 'a1' }],
    ['action', 'a1', 'pending'],
    ['assistant', 'Proposed.'],
  ];

  it('streamed: text pieces join into one answer per round, results fill their calls, actions follow their call', () => {
    let items: Item[] = [{ kind: 'user', key: 'u', text: 'why?' }];
    items = applyEvent(items, events[0]!);
    assert.equal(items[1]?.kind === 'assistant' && items[1].streaming, true, 'streaming while text arrives');
    for (const e of events.slice(1)) items = applyEvent(items, e);
    // The action comes before its call's result event, after the call: the same place as stored.
    assert.deepEqual(shape(items), [...expected.slice(0, 4), expected[4], expected[5]]);
    assert.ok(
      items.every((i) => i.kind !== 'assistant' || !i.streaming),
      'nothing streams after end',
    );
  });
  it('stored: the same items', () => {
    assert.deepEqual(shape(itemsOf(stored)), expected);
  });
  it('an error of the provider is an item, and ends the streaming answer', () => {
    let items = applyEvent([], { event: 'text', data: { delta: 'Hm' } });
    items = applyEvent(items, { event: 'error', data: { code: 'provider_error', message: 'down' } });
    assert.deepEqual(shape(items), [
      ['assistant', 'Hm'],
      ['error', 'provider_error'],
    ]);
    assert.equal(items[0]?.kind === 'assistant' && items[0].streaming, false);
  });
});
