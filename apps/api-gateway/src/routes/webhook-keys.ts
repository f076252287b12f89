// Keys of webhook triggers (`webhook_keys`): 32 base62 characters (190
// random bits), looked up by their SHA-256 so the database never needs the key
// itself to authorize a call. With SVC_MASTER_KEYS set, the key is also sealed
// (AES-256-GCM, the secrets package's `seal`) so editors can read it again in
// the flow's trigger view, and a missing key is created the first time an
// editor looks. Without master keys only the hash is stored: the key is shown
// once, in the rotate response.
import crypto from 'node:crypto';
import type pg from 'pg';
import type { MasterKey } from '@svc/config';
import type { FlowTrigger } from '@svc/flow-schema';
import { notFound } from '@svc/http';
import { createWebhookKey, findWebhookTargetByHash, replaceWebhookKey, webhookKeysOfFlow, webhookTriggerExists } from '@svc/namespaces';
import { open, seal } from '@svc/secrets';
import type { Schemas } from '@svc/api-spec';

export interface WebhookKeyDeps {
  pool: pg.Pool;
  /** `SVC_MASTER_KEYS`; empty means keys are stored hashed only. */
  masterKeys: readonly MasterKey[];
  /** `SVC_PUBLIC_URL`, the base of the hook URLs shown. */
  publicUrl: string;
  now: () => Date;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Key length in base62 characters: log2(62) * 32 = 190 bits. */
export const WEBHOOK_KEY_LENGTH = 32;

/** A fresh key: uniform base62 (bytes >= 248 are dropped so no character is likelier). */
export function newWebhookKey(): string {
  let out = '';
  while (out.length < WEBHOOK_KEY_LENGTH) {
    for (const b of crypto.randomBytes(48)) {
      if (b < 248 && out.length < WEBHOOK_KEY_LENGTH) out += BASE62[b % 62];
    }
  }
  return out;
}

export const hashWebhookKey = (key: string): string => crypto.createHash('sha256').update(key, 'utf8').digest('hex');

/** Binds a sealed key to its trigger, so a ciphertext copied to another row does not open. */
const aad = (namespace: string, flowId: string, triggerId: string) => `webhook-key:${namespace}/${flowId}/${triggerId}`;

export const hookUrl = (publicUrl: string, key: string) => `${publicUrl.replace(/\/+$/, '')}/hooks/${key}`;

async function writeKey(deps: WebhookKeyDeps, namespace: string, flowId: string, triggerId: string, mode: 'create' | 'replace'): Promise<string | null> {
  const key = newWebhookKey();
  const sealed = deps.masterKeys.length ? seal(key, deps.masterKeys, aad(namespace, flowId, triggerId)) : null;
  const w = { namespace, flowId, triggerId, hash: hashWebhookKey(key), sealed, now: deps.now() };
  if (mode === 'create') return (await createWebhookKey(deps.pool, w)) ? key : null;
  await replaceWebhookKey(deps.pool, w);
  return key;
}

/** The webhook trigger `triggerId` of a flow that exists; 404 otherwise. */
async function assertWebhookTrigger(pool: pg.Pool, namespace: string, flowId: string, triggerId: string): Promise<void> {
  if (!(await webhookTriggerExists(pool, namespace, flowId, triggerId))) throw notFound(`no webhook trigger ${triggerId} in flow ${namespace}/${flowId}`);
}

/** Replaces the key of a webhook trigger (the old one stops working with this statement's commit). */
export async function rotateWebhookKey(deps: WebhookKeyDeps, namespace: string, flowId: string, triggerId: string): Promise<Schemas['WebhookKey']> {
  await assertWebhookTrigger(deps.pool, namespace, flowId, triggerId);
  const key = (await writeKey(deps, namespace, flowId, triggerId, 'replace'))!;
  return { key, url: hookUrl(deps.publicUrl, key) };
}

/**
 * The keys of a flow's webhook triggers for the trigger view, by trigger id:
 * the key and URL when it is readable (sealed), null when only its hash is
 * kept. With master keys, a trigger without a key gets one here.
 */
export async function readableWebhookKeys(deps: WebhookKeyDeps, namespace: string, flowId: string): Promise<Map<string, Schemas['WebhookKey'] | null>> {
  const load = () => webhookKeysOfFlow(deps.pool, namespace, flowId);
  let rows = await load();
  if (deps.masterKeys.length && rows.some((r) => !r.has_key)) {
    // Two editors looking at once: ON CONFLICT DO NOTHING keeps the first key, and both read it back.
    for (const r of rows.filter((x) => !x.has_key)) await writeKey(deps, namespace, flowId, r.trigger_id, 'create');
    rows = await load();
  }
  const out = new Map<string, Schemas['WebhookKey'] | null>();
  for (const r of rows) {
    let key: string | null = null;
    if (r.key_ciphertext && r.key_nonce && r.key_id) {
      try {
        key = open({ ciphertext: r.key_ciphertext, nonce: r.key_nonce, keyId: r.key_id }, deps.masterKeys, aad(r.namespace, r.flow_id, r.trigger_id)).toString('utf8');
      } catch {
        // The sealing master key was removed from SVC_MASTER_KEYS: the key works but cannot be shown; rotating gives a readable one.
        key = null;
      }
    }
    out.set(r.trigger_id, key ? { key, url: hookUrl(deps.publicUrl, key) } : null);
  }
  return out;
}

export interface WebhookTarget {
  namespace: string;
  flow_id: string;
  trigger_id: string;
  enabled: boolean;
  /** The trigger as declared in the flow's current revision. */
  definition: FlowTrigger;
}

/** The webhook trigger a key opens (its flow not deleted), or undefined. */
export async function findWebhookKey(pool: pg.Pool, key: string): Promise<WebhookTarget | undefined> {
  return (await findWebhookTargetByHash(pool, hashWebhookKey(key))) as WebhookTarget | undefined;
}

/**
 * The trigger list of getFlow as an editor sees it: each webhook trigger with
 * `webhook_key` and `webhook_url` (null when the key is kept hashed only:
 * rotate it to see a new one).
 */
export async function triggersWithWebhookKeys<T extends { id: string; type: string }>(
  deps: WebhookKeyDeps,
  namespace: string,
  flowId: string,
  triggers: T[],
): Promise<(T & { webhook_key?: string | null; webhook_url?: string | null })[]> {
  if (!triggers.some((t) => t.type === 'webhook')) return triggers;
  const keys = await readableWebhookKeys(deps, namespace, flowId);
  return triggers.map((t) => (t.type === 'webhook' ? { ...t, webhook_key: keys.get(t.id)?.key ?? null, webhook_url: keys.get(t.id)?.url ?? null } : t));
}
