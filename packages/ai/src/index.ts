// The AI module's tables, one owner (docs/architecture/overview.md, "One owner per table").
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
