// The events of one assistant turn, as sendAIMessage streams them
// (text/event-stream: `event:` names the event, `data:` holds its JSON). The
// OpenAPI document publishes that answer as an event stream, not its events,
// so their shapes are declared here, once: the gateway sends them through
// `AITurnSend` and the clients read `AITurnEvent`.
import type { components } from './openapi-types.generated.js';

export type AITurnEvent =
  /** A piece of the assistant's text, as the model streams it. */
  | { event: 'text'; data: { delta: string } }
  /** The model calls a tool (arguments as the model sent them). */
  | { event: 'tool_call'; data: { id: string; name: string; arguments: unknown } }
  /** What the tool answered (masked), or why it failed. */
  | { event: 'tool_result'; data: { id: string; name: string; ok: boolean; result?: unknown; error?: unknown } }
  /** A change the user must confirm or refuse (confirmAIAction), with its diff when it edits a file. */
  | { event: 'action_proposed'; data: Pick<components['schemas']['AIAction'], 'id' | 'tool' | 'summary' | 'arguments' | 'diff'> }
  /** The turn failed: the error envelope's code and message. */
  | { event: 'error'; data: { code: string; message: string } }
  /** The turn is over: the stored assistant message, and why the model stopped. */
  | { event: 'end'; data: { message_id: string | null; stop_reason: string } };

export type AITurnEventName = AITurnEvent['event'];
/** The `data` of event `E`. */
export type AITurnEventData<E extends AITurnEventName> = Extract<AITurnEvent, { event: E }>['data'];
/** How the gateway writes an event of the turn to its stream. */
export type AITurnSend = <E extends AITurnEventName>(event: E, data: AITurnEventData<E>) => void;
