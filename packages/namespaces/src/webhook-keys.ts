// Rows of `webhook_keys`, the secret keys of webhook triggers (made and sealed
// by the gateway's webhook-keys.ts; only their hash identifies them here).
import { prismaOf, type Queryable } from '@svc/db';
import type { NamespacesDb } from './flows.js';

export interface WebhookKeyWrite {
  namespace: string;
  flowId: string;
  triggerId: string;
  /** SHA-256 of the key. */
  hash: string;
  /** The key sealed with a master key; null when only the hash is kept. */
  sealed: { ciphertext: Buffer; nonce: Buffer; keyId: string } | null;
  now: Date;
}

const bytes = (b: Buffer | undefined) => (b === undefined ? null : new Uint8Array(b));
const buf = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** Stores the first key of a trigger; false when it has one already (the first one written stays). */
export async function createWebhookKey(db: NamespacesDb, w: WebhookKeyWrite): Promise<boolean> {
  // skipDuplicates is ON CONFLICT DO NOTHING: of two editors looking at once, the first key is kept.
  const r = await prismaOf(db).webhookKey.createMany({
    data: [
      {
        namespace: w.namespace,
        flowId: w.flowId,
        triggerId: w.triggerId,
        keyHash: w.hash,
        keyCiphertext: bytes(w.sealed?.ciphertext),
        keyNonce: bytes(w.sealed?.nonce),
        keyId: w.sealed?.keyId ?? null,
        createdAt: w.now,
      },
    ],
    skipDuplicates: true,
  });
  return r.count > 0;
}

/** Replaces the key of a trigger (or stores its first one); the old key stops working with this statement. */
export async function replaceWebhookKey(db: NamespacesDb, w: WebhookKeyWrite): Promise<void> {
  const key = { keyHash: w.hash, keyCiphertext: bytes(w.sealed?.ciphertext), keyNonce: bytes(w.sealed?.nonce), keyId: w.sealed?.keyId ?? null };
  await prismaOf(db).webhookKey.upsert({
    where: { namespace_flowId_triggerId: { namespace: w.namespace, flowId: w.flowId, triggerId: w.triggerId } },
    create: { namespace: w.namespace, flowId: w.flowId, triggerId: w.triggerId, ...key, createdAt: w.now },
    update: { ...key, rotatedAt: w.now },
  });
}

/** Whether `triggerId` is a webhook trigger of a flow whose file exists. */
export async function webhookTriggerExists(db: NamespacesDb, namespace: string, flowId: string, triggerId: string): Promise<boolean> {
  const t = await prismaOf(db).flowTrigger.findFirst({ where: { namespace, flowId, triggerId, type: 'webhook', flow: { deletedAt: null } }, select: { triggerId: true } });
  return t !== null;
}

export interface WebhookKeyRow {
  namespace: string;
  flow_id: string;
  trigger_id: string;
  /** False when the trigger has no key yet. */
  has_key: boolean;
  key_ciphertext: Buffer | null;
  key_nonce: Buffer | null;
  key_id: string | null;
}

/** Each webhook trigger of a flow with its stored key, if any. */
export async function webhookKeysOfFlow(db: NamespacesDb, namespace: string, flowId: string): Promise<WebhookKeyRow[]> {
  const prisma = prismaOf(db);
  const triggers = await prisma.flowTrigger.findMany({ where: { namespace, flowId, type: 'webhook' }, select: { triggerId: true } });
  const keys = await prisma.webhookKey.findMany({ where: { namespace, flowId } });
  const byTrigger = new Map(keys.map((k) => [k.triggerId, k]));
  return triggers.map(({ triggerId }) => {
    const k = byTrigger.get(triggerId);
    return {
      namespace,
      flow_id: flowId,
      trigger_id: triggerId,
      has_key: k !== undefined,
      key_ciphertext: buf(k?.keyCiphertext ?? null),
      key_nonce: buf(k?.keyNonce ?? null),
      key_id: k?.keyId ?? null,
    };
  });
}

export interface WebhookTarget {
  namespace: string;
  flow_id: string;
  trigger_id: string;
  enabled: boolean;
  /** The trigger as declared in the flow's current revision. */
  definition: unknown;
}

/** The webhook trigger whose key has this hash (its flow not deleted), or undefined. */
export async function findWebhookTargetByHash(db: NamespacesDb, hash: string): Promise<WebhookTarget | undefined> {
  const prisma = prismaOf(db);
  const k = await prisma.webhookKey.findUnique({
    where: { keyHash: hash },
    select: { namespace: true, flowId: true, triggerId: true, flow: { select: { enabled: true, deletedAt: true } } },
  });
  if (!k || k.flow.deletedAt !== null) return undefined;
  const t = await prisma.flowTrigger.findFirst({ where: { namespace: k.namespace, flowId: k.flowId, triggerId: k.triggerId, type: 'webhook' }, select: { definition: true } });
  if (!t) return undefined;
  return { namespace: k.namespace, flow_id: k.flowId, trigger_id: k.triggerId, enabled: k.flow.enabled, definition: t.definition };
}

/** Deletes the keys of webhook triggers that no longer exist (a trigger added again later gets a new key); the scheduler's trigger sync runs it. */
export async function deleteOrphanWebhookKeys(q: Queryable): Promise<number> {
  const r = await q.query(
    `DELETE FROM webhook_keys w
     WHERE NOT EXISTS (SELECT 1 FROM flow_triggers ft
                       WHERE ft.namespace = w.namespace AND ft.flow_id = w.flow_id AND ft.trigger_id = w.trigger_id AND ft.type = 'webhook')`,
  );
  return r.rowCount ?? 0;
}
