// An assistant turn read as it arrives: sendAIMessage answers a POST with a
// text/event-stream, which EventSource cannot send, so the body is read with
// fetch and cut into events here. An error before the stream opens (404, 409
// ai_disabled, 429 rate_limited) comes back as the API's envelope and is
// thrown as an ApiError like every other call's.
import { API, ApiError, type ErrorDetail } from '../../api';
import type { ErrorEnvelope } from '../../types';
import type { TurnEvent } from './types';

/**
 * Cuts server-sent events out of text that arrives in pieces: push() each
 * piece, get the events it completed; a partial event waits for the rest.
 * Comments (`: ping`), ids and retries are skipped; data lines are joined.
 */
export class SseParser {
  private buf = '';
  /** A piece ended in CR: whether an LF starting the next belongs to it. */
  private cr = false;

  push(chunk: string): { event: string; data: string }[] {
    if (this.cr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.cr = chunk.endsWith('\r');
    this.buf += chunk.replace(/\r\n?/g, '\n');
    const out: { event: string; data: string }[] = [];
    let end: number;
    while ((end = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, end);
      this.buf = this.buf.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      if (data.length) out.push({ event, data: data.join('\n') });
    }
    return out;
  }
}

async function envelopeError(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  let details: ErrorDetail[] = [];
  try {
    const body = (await res.json()) as Partial<ErrorEnvelope>;
    code = body.error?.code ?? code;
    message = body.error?.message ?? message;
    details = body.error?.details ?? [];
  } catch {
    // Not an envelope: keep the status text.
  }
  return new ApiError(res.status, code, message, res.headers.get('x-request-id') ?? '', details);
}

/** Sends `content` to the conversation and calls `onEvent` with each event of the turn as it arrives; resolves after the last. */
export async function sendMessage(conversationId: string, content: string, onEvent: (e: TurnEvent) => void, signal?: AbortSignal): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`${API}/ai/conversations/${encodeURIComponent(conversationId)}/messages`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({ content }),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) return;
    throw new ApiError(0, 'network', `The service could not be reached: ${(err as Error).message}`, '');
  }
  if (!res.ok) throw await envelopeError(res);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const e of parser.push(value)) onEvent({ event: e.event, data: JSON.parse(e.data) as unknown } as TurnEvent);
    }
  } catch (err) {
    if (signal?.aborted) return;
    throw new ApiError(0, 'network', `The answer was cut off: ${(err as Error).message}`, '');
  }
}
