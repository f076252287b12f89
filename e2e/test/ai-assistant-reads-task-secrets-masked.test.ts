// A real task prints and outputs secret values, and the AI assistant reads
// its logs and its execution through its tools: one value is a namespace
// secret the task resolved (masked at the source by the engine), the other
// came in as an input and was made a global secret only after the run (so
// the stored lines and outputs still hold it, and only the assistant's own
// masking of tool results hides it). Neither value reaches the model (a local
// OpenAI-compatible stand-in), the turn's event stream, the stored
// conversation or the gateway's output.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { startOpenAIStandin, type Answer, type Standin, type StandinRequest } from './openai-standin.js';
import { startStack, type Stack } from './stack.js';
import { flow, sh } from './engine-support.js';

const NS = 'aimask';
const SECRET = 'ai-sec-' + crypto.randomBytes(10).toString('hex');
const LATER = 'ai-later-' + crypto.randomBytes(10).toString('hex');
let s: Stack;
let llm: Standin;

function decide(r: StandinRequest): Answer {
  if (!r.body.tools) return { text: 'ok' };
  const msgs = r.body.messages;
  if (msgs[msgs.length - 1]!.role === 'tool') return { text: 'Read them.' };
  const id = /execution (\S+)/.exec([...msgs].reverse().find((m) => m.role === 'user')?.content ?? '')?.[1] ?? '';
  return {
    toolCalls: [
      { name: 'read_logs', arguments: { execution_id: id } },
      { name: 'get_execution', arguments: { execution_id: id } },
    ],
  };
}

before(async () => {
  llm = await startOpenAIStandin(decide);
  s = await startStack();
  await s.api('POST', '/api/v1/namespaces', { name: NS });
  assert.equal((await s.api('PUT', `/api/v1/namespaces/${NS}/secrets/TOKEN`, { value: SECRET })).status, 200);
  await s.saveFlow(NS, {
    'leak.flow.yaml': flow({
      id: 'leak',
      inputs: [{ id: 'l', type: 'string' }],
      tasks: [
        {
          id: 'leak',
          type: 'command',
          env: { S: "{{ secret('TOKEN') }}", L: '{{ inputs.l }}' },
          command: sh(
            [
              'echo "token $S"',
              'echo "later $L"',
              `printf '{"outputs": {"token": "%s", "later": "%s"}}\\n' "$S" "$L" >> "$SVC_OUTPUTS"`,
              'echo "failing with $L" >&2',
              'exit 3',
            ].join('; '),
          ),
        },
      ],
    }),
  });
});

after(async () => {
  await s?.stop();
  await llm?.close();
});

test('the assistant reads a task that printed secret values: masked for the model, the stream, the stored conversation and the logs', async () => {
  const e = await s.trigger(NS, 'leak', { inputs: { l: LATER } });
  const ended = await s.waitEnded(e.id, 120_000);
  assert.equal(ended.state, 'FAILED', JSON.stringify(ended));
  // Made a secret after the run: what the run stored still holds it.
  assert.equal((await s.api('PUT', '/api/v1/secrets/LATER', { value: LATER })).status, 200);
  assert.ok((await s.db.query(`SELECT 1 FROM log_lines WHERE execution_id = $1 AND text LIKE '%' || $2 || '%'`, [e.id, LATER])).rowCount, 'the stored lines hold the later secret');

  assert.equal((await s.api('PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url })).status, 200);
  const conv = await s.api<{ id: string }>('POST', '/api/v1/ai/conversations', {});
  assert.equal(conv.status, 201);
  const r = await fetch(`${s.url}/api/v1/ai/conversations/${conv.body.id}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: `why did execution ${e.id} fail?` }),
  });
  assert.equal(r.status, 200);
  const stream = await r.text();
  assert.match(stream, /event: tool_result/);
  assert.match(stream, /token \*\*\*/, 'the tool read the lines');
  assert.match(stream, /later \*\*\*/);
  assert.match(stream, /event: end/);

  const stored = await s.api('GET', `/api/v1/ai/conversations/${conv.body.id}`);
  const rows = await s.db.query(`SELECT * FROM ai_messages WHERE conversation_id = $1`, [conv.body.id]);
  const places: Record<string, string> = {
    event_stream: stream,
    model_requests: JSON.stringify(llm.requests),
    conversation: JSON.stringify(stored.body),
    stored_messages: JSON.stringify(rows.rows),
    gateway_output: s.procs.map((p) => p.output()).join('\n'),
  };
  for (const [where, text] of Object.entries(places)) {
    assert.ok(!text.includes(SECRET), `the task's secret reached ${where}`);
    assert.ok(!text.includes(LATER), `the later secret reached ${where}`);
  }
  assert.match(places.model_requests!, /later \*\*\*/, 'the model got the masked lines');
});
