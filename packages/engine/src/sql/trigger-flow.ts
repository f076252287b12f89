// Triggering a flow by name (systems/trigger.ts): the flow's current
// revision and its namespace's head snapshot, in one read.

/** Flow $1/$2's current revision and its namespace's head snapshot (a trigger by name). */
export const FLOW_HEAD_SQL = `SELECT f.enabled, r.id AS revision_id, r.definition, v.snapshot_id, n.head_version AS version, rv.git_sha
     FROM flows f JOIN flow_revisions r ON r.id = f.current_revision_id JOIN namespaces n ON n.name = f.namespace
     LEFT JOIN namespace_versions v ON v.id = n.head_version_id LEFT JOIN namespace_versions rv ON rv.id = r.namespace_version_id
     WHERE f.namespace = $1 AND f.flow_id = $2 AND f.deleted_at IS NULL`;
