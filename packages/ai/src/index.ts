// @svc/ai: the AI module's domain. Its tables, one owner
// (docs/architecture/overview.md, "One owner per table"): conversations,
// insights, usage counters, the provider row. The provider's chat models
// (models.ts), the daily limits (limits.ts), the masking of what the model
// reads (masking.ts), triage and automatic triage. The gateway keeps what is
// bound to HTTP: the assistant's turn loop, its tools (operations of the API
// called in-process) and MCP (apps/api-gateway/src/ai/).
export { ConversationStore, type ActionRow, type ConversationCursor, type ConversationRow, type MessageRow } from './conversations.js';
export { AiUsageCounters, deleteAiUsageBefore, type DayCounts, type UsageRow } from './usage.js';
export {
  claimAutoTriages,
  completeInsight,
  createInsight,
  failClaimedInsight,
  failInsight,
  insightsOf,
  INSIGHT_STATES,
  markInsightRunning,
  type InsightRow,
  type InsightState,
} from './insights.js';
export { deleteProvider, enabledProvider, putProvider, type ProviderSettingsRow, type SealedProviderKey } from './provider.js';
export {
  AIProviderStore,
  anthropicMessages,
  chatModel,
  isProviderType,
  PROVIDER_TYPES,
  safeJson,
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type ProviderRow,
  type ProviderSettings,
  type ProviderType,
  type ToolCall,
  type ToolSpec,
} from './models.js';
export { AIUsage, AIUsageLimitError, AUTO_USER, estimateTokens, utcDay, type AIUsageLimits, type LimitName } from './limits.js';
export {
  executionSecretValues,
  NO_SCOPE,
  restoreMaskedLines,
  scopeOfError,
  scopeOfInput,
  ToolResultMasker,
  unresolvedMaskMessage,
  type MaskScope,
  type ResultMaskerDeps,
} from './masking.js';
export { collectEvidence, insightBody, LOG_TAIL_LINES, parseTriage, runTriage, TRIAGE_STATES, type Evidence, type TriageDeps } from './triage.js';
export { AUTO_REQUESTER, startAutoTriage, type AutoTriageOptions } from './auto-triage.js';
export { argText, fileDiff } from './text.js';
