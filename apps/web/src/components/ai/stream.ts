// An assistant turn read as it arrives: sendAIMessage answers a POST with a
// text/event-stream, which EventSource cannot send, so it is read with the
// API client's streamPost. The POST is sent once (sent again it would ask
// again); an error before the stream opens (404, 409 ai_disabled, 429
// rate_limited) comes back as the API's envelope and is thrown as an
// ApiError like every other call's, and an answer cut off is said as such.
import { ApiError, client } from '../../api';
import type { TurnEvent } from './types';

/** A turn's event as its type says (the spec package declares the events the gateway sends). */
const turnEvent = (event: string | undefined, data: string) => ({ event: event ?? 'message', data: JSON.parse(data) as unknown }) as TurnEvent;

/** Sends `content` to the conversation and calls `onEvent` with each event of the turn as it arrives, `end` included; resolves after the last. */
export async function sendMessage(conversationId: string, content: string, onEvent: (e: TurnEvent) => void, signal?: AbortSignal): Promise<void> {
  await client.streamPost(
    '/api/v1/ai/conversations/{conversationId}/messages',
    { params: { path: { conversationId } }, body: { content } },
    {
      ...(signal ? { signal } : {}),
      onEvent: (e) => onEvent(turnEvent(e.event, e.data)),
      onEnd: (e) => onEvent(turnEvent(e.event, e.data)),
      lostStream: (_path, cause) => new ApiError(0, 'network', `The answer was cut off: ${(cause as Error).message}`, ''),
    },
  );
}
