// The AI objects the assistant panel and the triage section read: aliases of
// the generated types (apps/web/src/types.ts), under the names these
// components use. Only the events of a streamed turn are named here: the
// document publishes sendAIMessage's answer as an event stream, not its events.
import type { AIAction, AIActionStatus, AIConversation, AIMessage, AIMessagePart, AIStatus, Insight, InsightEvidence } from '../../types';

export type { AIAction, AIStatus, Insight };
/** A part of a stored message: a tool call of the assistant, or the text a tool answered (masked). */
export type StoredPart = AIMessagePart;
export type StoredMessage = AIMessage;
export type ActionStatus = AIActionStatus;
/** getAIConversation: the conversation with its messages and actions. */
export type Conversation = AIConversation;
/** listAIConversations: a conversation without its messages. */
export type ConversationSummary = AIConversation;
/** An evidence item of a triage, with the place it comes from. */
export type Evidence = InsightEvidence;
export type EvidenceKind = InsightEvidence['kind'];
/** An action as the panel shows it: a stored one, or one a turn just proposed (`action_proposed`), which has no times yet. */
export type ShownAction = Pick<AIAction, 'id' | 'tool' | 'summary' | 'arguments' | 'diff' | 'status' | 'result' | 'error'> & Partial<Pick<AIAction, 'created_at' | 'decided_at'>>;

/** The events of one assistant turn (sendAIMessage's stream; see apps/api-gateway/src/ai/assistant.ts). */
export type TurnEvent =
  | { event: 'text'; data: { delta: string } }
  | { event: 'tool_call'; data: { id: string; name: string; arguments: unknown } }
  | { event: 'tool_result'; data: { id: string; name: string; ok: boolean; result?: unknown; error?: unknown } }
  | { event: 'action_proposed'; data: { id: string; tool: string; summary: string; arguments: Record<string, unknown>; diff?: string } }
  | { event: 'error'; data: { code: string; message: string } }
  | { event: 'end'; data: { message_id: string | null; stop_reason: string } };
