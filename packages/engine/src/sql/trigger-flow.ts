// Triggering a flow by name (systems/trigger.ts): the flow's current
// revision and its namespace's head snapshot, in one read.
import type { Queryable } from '@svc/db';
import type { FlowDefinition } from '@svc/flow-schema';

/** What a trigger reads of a flow: its current revision and its namespace's head snapshot. */
export interface FlowHead {
  enabled: boolean;
  revision_id: string;
  definition: FlowDefinition;
  snapshot_id: string | null;
  version: number;
  /** The git commit of the namespace version the execution pins (the head: the files that run); null when a user saved it. */
  git_sha: string | null;
}

/** Flow `namespace`/`flowId`'s current revision and its namespace's head snapshot; undefined when there is no such flow. */
export async function flowHead(db: Queryable, p: { namespace: string; flowId: string }): Promise<FlowHead | undefined> {
  const r = await db.query<FlowHead>({
    name: 'svc-trigger-flow',
    text: `SELECT f.enabled, r.id AS revision_id, r.definition, v.snapshot_id, n.head_version AS version, v.git_sha
     FROM flows f JOIN flow_revisions r ON r.id = f.current_revision_id JOIN namespaces n ON n.name = f.namespace
     LEFT JOIN namespace_versions v ON v.id = n.head_version_id
     WHERE f.namespace = $1 AND f.flow_id = $2 AND f.deleted_at IS NULL`,
    values: [p.namespace, p.flowId],
  });
  return r.rows[0];
}
