// What each list operation keeps in its opaque `cursor` (the sort key of the
// last row of a page). The cursor is not part of the public interface (the
// spec: "do not build or change it"), so these shapes never reach the OpenAPI
// document; they exist so that one validator (@svc/http) decodes and
// range-checks every cursor before a handler runs: a cursor that decodes to
// values PostgreSQL would refuse (February 30th, an n past int4, a NUL byte)
// is 422 on field `cursor`, never a 500 from the database.
import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import type { CursorOperationId } from '../api-types.js';

/**
 * An instant as PostgreSQL's timestamptz takes it: RFC 3339 with a real
 * calendar date and up to nine fraction digits (the `cursor-time` format is
 * defined by the validator).
 */
export const CursorTime = Type.String({ format: 'cursor-time', maxLength: 40 });

/** Text held by a text column: bounded, without the NUL byte PostgreSQL refuses. */
export const CursorText = Type.String({ maxLength: 1024, pattern: '^[^\\u0000]*$' });

/** A value of an int4 column. */
export const CursorInt4 = Type.Integer({ minimum: -2147483648, maximum: 2147483647 });

/** A value of an int8 column, as decimal text (JSON numbers lose precision past 2^53). */
export const CursorInt8 = Type.String({ format: 'cursor-int8', maxLength: 20 });

/** A cursor of exactly these keys (their types kept, so `Cursor<Op>` knows them). */
export const CursorOf = <T extends TProperties>(props: T) => Type.Object(props, { additionalProperties: false });

export const UsersCursor = CursorOf({ email: CursorText });
export const TokensCursor = CursorOf({ id: CursorText });
export const ExecutionsCursor = CursorOf({ created_at: CursorTime, id: CursorText });
export const ArtifactsCursor = CursorOf({ c: CursorTime, id: CursorText });
export const MetricsCursor = CursorOf({ id: CursorInt8 });
export const LogsCursor = CursorOf({ ts: CursorInt8, t: CursorText, n: CursorInt4 });
export const FlowsCursor = CursorOf({ namespace: CursorText, flow_id: CursorText });
export const FlowRevisionsCursor = CursorOf({ revision: CursorInt4 });
export const SchedulesCursor = CursorOf({ next_fire_at: CursorTime, namespace: CursorText, flow_id: CursorText, trigger_id: CursorText });
export const NamespacesCursor = CursorOf({ name: CursorText });
export const FilesCursor = CursorOf({ path: CursorText });
export const ConversationsCursor = CursorOf({ updated_at: CursorTime, id: CursorText });
export const InsightsCursor = CursorOf({ created_at: CursorTime, id: CursorText });
export const VersionsCursor = CursorOf({ version: CursorInt4 });
export const KeysCursor = CursorOf({ key: CursorText });
export const ProvidersCursor = CursorOf({ name: CursorText });
export const IdCursor = CursorOf({ id: CursorText });
export const GitSyncRunsCursor = CursorOf({ started_at: CursorTime, id: CursorText });
export const AuditCursor = CursorOf({ at: CursorTime, id: CursorText });
export const OrganizationsCursor = CursorOf({ name: CursorText });
/** The sort key of the lists newest first by creation (alert rules and deliveries, backfills, organization emails). */
export const CreatedCursor = CursorOf({ created_at: CursorTime, id: CursorText });

/**
 * The cursor of every operation that takes one, by operation id: the one
 * declaration of what its `cursor` holds. The catalog's `request.cursor` is
 * taken from here, the validator checks a decoded cursor against it, and a
 * handler gets `ctx.cursor` typed by it (@svc/http's `Cursor<Op>`) and encodes its
 * `next_cursor` with the same type, so an operation decodes the cursor it
 * encodes. An operation whose query takes a `cursor` and has no entry here,
 * or an entry for one that does not, fails to compile.
 */
export const OPERATION_CURSORS = {
  listTokens: TokensCursor,
  listUsers: UsersCursor,
  listExecutions: ExecutionsCursor,
  listExecutionArtifacts: ArtifactsCursor,
  listExecutionInsights: InsightsCursor,
  getExecutionLogs: LogsCursor,
  listExecutionMetrics: MetricsCursor,
  listFlows: FlowsCursor,
  listFlowRevisions: FlowRevisionsCursor,
  listUpcomingSchedules: SchedulesCursor,
  listNamespaces: NamespacesCursor,
  listFiles: FilesCursor,
  listVersions: VersionsCursor,
  listNamespaceSecrets: KeysCursor,
  listNamespaceVariables: KeysCursor,
  listGlobalSecrets: KeysCursor,
  listGlobalVariables: KeysCursor,
  listSecretProviders: ProvidersCursor,
  listPlatformSecrets: ProvidersCursor,
  listGitSources: IdCursor,
  listGitSyncRuns: GitSyncRunsCursor,
  listInstances: IdCursor,
  listAuditEvents: AuditCursor,
  listAIConversations: ConversationsCursor,
  listOrganizations: OrganizationsCursor,
  listOrganizationEmails: CreatedCursor,
  listAlertRules: CreatedCursor,
  listAlertDeliveries: CreatedCursor,
  listBackfills: CreatedCursor,
} satisfies Record<CursorOperationId, TSchema>;
