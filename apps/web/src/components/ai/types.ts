// The AI objects the assistant panel and the triage section read: aliases of
// the generated types (apps/web/src/types.ts), under the names these
// components use. The events of a streamed turn come from the spec package
// (@svc/api-spec/ai-turn-events): the document publishes that answer as an
// event stream, not its events.
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

/** The events of one assistant turn (sendAIMessage's stream), as the spec package declares them. */
export type { AITurnEvent as TurnEvent } from '@svc/api-spec/ai-turn-events';
