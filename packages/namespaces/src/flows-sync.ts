// Keeps the flows table in step with the `*.flow.yaml` files of the head
// version, inside the transaction that writes the version:
//   - a new flow file creates its flow (enabled) and revision 1;
//   - changed content adds a revision (identical content adds none);
//   - a moved file moves its flow (same id, new path);
//   - a removed file deletes the flow (deleted_at; executions stay readable,
//     and a file with the same id later brings it back with its revision count);
//   - two files defining one flow id are refused (flow_invalid).
// Each flow's triggers are rewritten from its current definition.
import crypto from 'node:crypto';
import type pg from 'pg';
import { newId } from '@svc/db';
import { validateFlow, type FlowDefinition } from '@svc/flow-schema';
import type { ObjectStore } from '@svc/storage';
import { FlowFilesInvalidError, type FieldProblem } from './errors.js';
import { fileObjectKey, type Manifest } from './manifest.js';
import { isFlowFile } from './paths.js';
import { reachProblems } from './reach.js';

interface SyncInput {
  namespace: string;
  versionId: string;
  author: string;
  before: Manifest;
  after: Manifest;
  /** Contents uploaded by this save, by hash (others are read from the store). */
  contents: Map<string, Buffer>;
}

async function contentOf(storage: ObjectStore, contents: Map<string, Buffer>, hash: string): Promise<Buffer> {
  return contents.get(hash) ?? storage.getBuffer(fileObjectKey(hash));
}

export async function syncFlows(c: pg.PoolClient, deps: { storage: ObjectStore; now: Date }, s: SyncInput): Promise<void> {
  const current = (
    await c.query<{ flow_id: string; path: string; hash: string | null }>(
      `SELECT f.flow_id, f.path, r.hash FROM flows f LEFT JOIN flow_revisions r ON r.id = f.current_revision_id
       WHERE f.namespace = $1 AND f.deleted_at IS NULL`,
      [s.namespace],
    )
  ).rows;
  const byPath = new Map(current.map((f) => [f.path, f]));

  // The flow id and definition of every flow file of the new version.
  const problems: FieldProblem[] = [];
  const files: { path: string; id: string; hash: string; source?: string; definition?: FlowDefinition }[] = [];
  for (const [path, entry] of s.after) {
    if (!isFlowFile(path)) continue;
    const known = byPath.get(path);
    if (known && known.hash === entry.hash) {
      files.push({ path, id: known.flow_id, hash: entry.hash });
      continue;
    }
    const source = (await contentOf(deps.storage, s.contents, entry.hash)).toString('utf8');
    const { flow, errors } = validateFlow(source);
    if (!flow) {
      for (const e of errors) problems.push({ field: `${path}:${e.pointer}`, message: e.message });
      continue;
    }
    files.push({ path, id: flow.id, hash: entry.hash, source, definition: flow });
  }
  const seen = new Map<string, string>();
  for (const f of files) {
    const other = seen.get(f.id);
    if (other !== undefined) problems.push({ field: `${f.path}:/id`, message: `flow id "${f.id}" is already defined by ${other}` });
    else seen.set(f.id, f.path);
  }
  if (problems.length) throw new FlowFilesInvalidError(problems);
  // New and changed flows may name only what their namespace reaches (reach.ts); flows left as they were are checked when they run.
  const reachable = await reachProblems(
    c,
    s.namespace,
    files.flatMap((f) => (f.definition ? [{ path: f.path, definition: f.definition }] : [])),
  );
  if (reachable.length) throw new FlowFilesInvalidError(reachable);

  // Flows whose file is gone: deleted (their triggers stop at once).
  const kept = new Set(files.map((f) => f.id));
  for (const f of current) {
    if (kept.has(f.flow_id)) continue;
    await c.query(`UPDATE flows SET deleted_at = $3, updated_at = $3 WHERE namespace = $1 AND flow_id = $2`, [s.namespace, f.flow_id, deps.now]);
    await c.query(`DELETE FROM flow_triggers WHERE namespace = $1 AND flow_id = $2`, [s.namespace, f.flow_id]);
  }

  for (const f of files) {
    if (!f.definition) {
      // Same content under the same or another path: at most a move.
      const was = current.find((x) => x.flow_id === f.id);
      if (was && was.path !== f.path) await c.query(`UPDATE flows SET path = $3, updated_at = $4 WHERE namespace = $1 AND flow_id = $2`, [s.namespace, f.id, f.path, deps.now]);
      continue;
    }
    const def = f.definition;
    const flow = (
      await c.query<{ revision_count: number; current_hash: string | null }>(
        `INSERT INTO flows (namespace, flow_id, path, enabled, description, labels, created_at, updated_at)
         VALUES ($1, $2, $3, true, $4, $5, $6, $6)
         ON CONFLICT (namespace, flow_id) DO UPDATE
           SET path = EXCLUDED.path, description = EXCLUDED.description, labels = EXCLUDED.labels, deleted_at = NULL, updated_at = EXCLUDED.updated_at
         RETURNING revision_count, (SELECT hash FROM flow_revisions WHERE id = flows.current_revision_id) AS current_hash`,
        [s.namespace, f.id, f.path, def.description ?? '', JSON.stringify(def.labels ?? {}), deps.now],
      )
    ).rows[0];
    const hash = crypto.createHash('sha256').update(f.source!).digest('hex');
    if (flow.current_hash !== hash) {
      const revisionId = newId();
      await c.query(
        `INSERT INTO flow_revisions (id, namespace, flow_id, revision, source_yaml, definition, hash, namespace_version_id, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [revisionId, s.namespace, f.id, flow.revision_count + 1, f.source, JSON.stringify(def), hash, s.versionId, s.author, deps.now],
      );
      await c.query(`UPDATE flows SET current_revision_id = $3, revision_count = revision_count + 1 WHERE namespace = $1 AND flow_id = $2`, [s.namespace, f.id, revisionId]);
    }
    await c.query(`DELETE FROM flow_triggers WHERE namespace = $1 AND flow_id = $2`, [s.namespace, f.id]);
    for (const t of def.triggers ?? []) {
      const upstream = t.type === 'flow' ? t.flow.split('/') : [];
      await c.query(
        `INSERT INTO flow_triggers (namespace, flow_id, trigger_id, type, upstream_namespace, upstream_flow_id, states, definition, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [s.namespace, f.id, t.id, t.type, upstream[0] ?? null, upstream[1] ?? null, t.type === 'flow' ? t.states : [], JSON.stringify(t), deps.now],
      );
    }
  }
}
