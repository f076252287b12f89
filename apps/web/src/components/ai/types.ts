// The AI objects the assistant panel and the triage section read. The
// generated types (@svc/api-spec) give their base; the OpenAPI document leaves
// a conversation's messages and actions and an insight's evidence free-form
// (the spec does not show those fields), so their shapes as
// apps/api-gateway/src/routes/ai.ts and src/ai/triage.ts send them are named
// here, on top of the generated ones.
import type { components } from '@svc/api-spec/openapi-types';

type Schemas = components['schemas'];

/** getAIStatus: whether a provider is set, and which. */
export type AIStatus = Schemas['AIStatus'] & { auto_triage?: boolean };

/** A part of a stored message: a tool call of the assistant, or the text a tool answered (masked). */
export type StoredPart = { type: 'tool_call'; id: string; name: string; arguments: string } | { type: 'tool_result'; tool_call_id: string; name: string; content: string };

export interface StoredMessage {
  id: string;
  seq: number;
  role: 'user' | 'assistant' | 'tool';
  content: string;
  parts: StoredPart[];
  created_at: string;
}

export type ActionStatus = 'pending' | 'confirmed' | 'succeeded' | 'failed' | 'rejected';

/** An action the assistant proposed (save_flow, trigger_flow, cancel_execution, rerun_execution, restart_execution). */
export interface AIAction {
  id: string;
  tool: string;
  summary: string;
  arguments: Record<string, unknown>;
  /** save_flow: the unified diff of the file, masked. */
  diff?: string;
  status: ActionStatus;
  result?: unknown;
  error?: string;
  created_at?: string;
  decided_at?: string | null;
}

/** getAIConversation: the conversation with its messages and actions. */
export type Conversation = Pick<Schemas['AIConversation'], 'id' | 'title' | 'created_at' | 'updated_at'> & { messages?: StoredMessage[]; actions?: AIAction[] };
export type ConversationSummary = Schemas['AIConversation'];

/** The events of one assistant turn (sendAIMessage's stream; see apps/api-gateway/src/ai/assistant.ts). */
export type TurnEvent =
  | { event: 'text'; data: { delta: string } }
  | { event: 'tool_call'; data: { id: string; name: string; arguments: unknown } }
  | { event: 'tool_result'; data: { id: string; name: string; ok: boolean; result?: unknown; error?: unknown } }
  | { event: 'action_proposed'; data: { id: string; tool: string; summary: string; arguments: Record<string, unknown>; diff?: string } }
  | { event: 'error'; data: { code: string; message: string } }
  | { event: 'end'; data: { message_id: string | null; stop_reason: string } };

export type EvidenceKind = 'execution' | 'task_run' | 'log_tail' | 'flow_definition' | 'changes_since_success';

/** An evidence item of a triage, with the place it comes from. */
export interface Evidence {
  id: string;
  kind: EvidenceKind;
  title: string;
  content: string;
  cited?: boolean;
  execution_id?: string;
  task_run_id?: string;
  task_key?: string;
  attempt?: number;
  /** log_tail: the number `n` of each line of `content`. */
  lines?: number[];
}

/** An AI triage of an execution (listExecutionInsights, requestTriage). */
export type Insight = Schemas['Insight'] & {
  probable_cause?: string | null;
  suggested_fix?: string | null;
  evidence?: Evidence[] | null;
  model?: string | null;
  error?: string;
  requested_by?: string | null;
  completed_at?: string | null;
};
