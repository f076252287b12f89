// An execution's variables (the `vars` of its templates): its flow's
// `variables`, the namespace's, its parents', global ones, with the
// `namespace.yaml` variables of its snapshot below all of them.
import type pg from 'pg';
import type { FlowDefinition } from '@svc/flow-schema';
import { fileObjectKey, parseNamespaceFile } from '@svc/namespaces';
import { VariableStore } from '@svc/secrets';
import { namespaceFileHash } from '../sql/start-reads.js';

export interface VarsSource {
  namespace: string;
  snapshot_id: string;
  definition: FlowDefinition;
}

/** Without an object store, the `namespace.yaml` variables are left out. */
export async function executionVars(
  pool: pg.Pool | pg.PoolClient,
  storage: { getBuffer(k: string): Promise<Buffer> } | undefined,
  ex: VarsSource,
): Promise<Record<string, string>> {
  let nsFileVars: Record<string, string> = {};
  const hash = storage && (await namespaceFileHash(pool, { snapshotId: ex.snapshot_id }));
  if (storage && hash) {
    try {
      nsFileVars = parseNamespaceFile((await storage.getBuffer(fileObjectKey(hash))).toString('utf8')).variables ?? {};
    } catch {
      nsFileVars = {};
    }
  }
  return { ...nsFileVars, ...(await new VariableStore(pool).resolveVars(ex.namespace, ex.definition.variables ?? {})) };
}
