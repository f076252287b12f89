// A local stand-in of the OpenAI-compatible chat completions API on
// 127.0.0.1: streaming (SSE chunks) and non-streaming answers, tool calls
// whose arguments arrive in pieces, and a record of every request so tests
// can look at what the gateway sent (prompts, tools, the API key).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandinRequest {
  authorization: string | undefined;
  body: {
    model: string;
    stream?: boolean;
    messages: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
    tools?: { function: { name: string } }[];
  };
}

/**
 * What the stand-in answers: text, or tool calls. A streamed text with `hold`
 * sends its first piece, then waits for `hold` before the rest (a test sees
 * the answer arrive part by part).
 */
export type Answer = { text: string; hold?: Promise<unknown> } | { toolCalls: { name: string; arguments: Record<string, unknown> }[] };

export interface Standin {
  url: string;
  requests: StandinRequest[];
  close(): Promise<void>;
}

export async function startOpenAIStandin(decide: (req: StandinRequest) => Answer): Promise<Standin> {
  const requests: StandinRequest[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (data += d));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const r: StandinRequest = { authorization: req.headers.authorization, body: JSON.parse(data) };
      requests.push(r);
      const answer = decide(r);
      const id = `chatcmpl-${++n}`;
      const base = { id, object: 'chat.completion.chunk', created: 1, model: r.body.model };
      if (!r.body.stream) {
        const message =
          'text' in answer
            ? { role: 'assistant', content: answer.text }
            : {
                role: 'assistant',
                content: null,
                tool_calls: answer.toolCalls.map((c, i) => ({ id: `call_${n}_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
              };
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id,
            object: 'chat.completion',
            created: 1,
            model: r.body.model,
            choices: [{ index: 0, message, finish_reason: 'text' in answer ? 'stop' : 'tool_calls' }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: unknown, finish: string | null = null) => res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      chunk({ role: 'assistant', content: '' });
      if ('text' in answer) {
        // In a few pieces, as a real model streams.
        for (const [i, piece] of (answer.text.match(/.{1,12}/gs) ?? []).entries()) {
          if (i === 1 && answer.hold) await answer.hold;
          chunk({ content: piece });
        }
        chunk({}, 'stop');
      } else {
        answer.toolCalls.forEach((c, i) => {
          const args = JSON.stringify(c.arguments);
          chunk({ tool_calls: [{ index: i, id: `call_${n}_${i}`, type: 'function', function: { name: c.name, arguments: '' } }] });
          const half = Math.ceil(args.length / 2);
          chunk({ tool_calls: [{ index: i, function: { arguments: args.slice(0, half) } }] });
          chunk({ tool_calls: [{ index: i, function: { arguments: args.slice(half) } }] });
        });
        chunk({}, 'tool_calls');
      }
      if ((r.body as { stream_options?: { include_usage?: boolean } }).stream_options?.include_usage)
        res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
