// Key rotation, the operator's side. To retire master key OLD:
//   1. SVC_MASTER_KEYS=NEW:...,OLD:...  (NEW seals from now on; OLD still opens)
//   2. rewrapSecrets: every row sealed with another id than NEW is opened and
//      sealed again with NEW (builtin secrets, provider credentials and
//      platform secrets; a platform secret the upgrade copied from a global
//      secret is also sealed again as a platform secret, whatever its key)
//   3. SVC_MASTER_KEYS=NEW:...          (`/readyz` master_keys stays ok)
import type { MasterKey } from '@svc/config';
import { inTransaction, type PrismaDb, type Queryable } from '@svc/db';
import type pg from 'pg';
import { open, platformSecretAad, providerCredentialsAad, seal, secretAad } from './crypto.js';
import { BuiltinProviderDisabledError } from './errors.js';
import { platformRowAad } from './platform-store.js';

export interface RewrapSkip {
  table: 'secrets' | 'secret_providers' | 'platform_secrets';
  /** `namespace/key` of a secret ('' namespace = global), a provider's name or a platform secret's name. */
  id: string;
  keyId: string;
  /** `master_key_missing` or `secret_undecryptable`. */
  reason: string;
}

export interface RewrapReport {
  /** Secrets sealed again with the first key. */
  secrets: number;
  /** Provider credentials sealed again with the first key. */
  providers: number;
  /** Platform secrets sealed again with the first key (and as platform secrets). */
  platformSecrets: number;
  /** Rows that could not be opened with the listed keys; they keep their old seal. */
  skipped: RewrapSkip[];
}

export interface RewrapOptions {
  /** Rows per transaction. Default 100. */
  batchSize?: number;
}

function reasonOf(err: unknown): string {
  const reason = (err as { reason?: unknown }).reason;
  if (reason === 'master_key_missing' || reason === 'secret_undecryptable') return reason;
  throw err;
}

/**
 * Seals every secret, provider credential and platform secret again with the first key of
 * `keys`. Rows are locked batch by batch, so the service keeps running;
 * `updated_at` is left alone (the value did not change).
 * @throws BuiltinProviderDisabledError when `keys` is empty.
 */
export async function rewrapSecrets(pool: pg.Pool, keys: readonly MasterKey[], opts: RewrapOptions = {}): Promise<RewrapReport> {
  const first = keys[0];
  if (!first) throw new BuiltinProviderDisabledError();
  const batch = opts.batchSize ?? 100;
  const report: RewrapReport = { secrets: 0, providers: 0, platformSecrets: 0, skipped: [] };

  let after: { namespace: string; key: string } | undefined;
  for (;;) {
    const rows = await inTransaction(pool, async (c) => {
      const r = await c.query<{ namespace: string; key: string; ciphertext: Buffer; nonce: Buffer; key_id: string }>(
        `SELECT namespace, key, ciphertext, nonce, key_id FROM secrets
         WHERE key_id <> $1 AND ($2::text IS NULL OR (namespace, key) > ($2, $3))
         ORDER BY namespace, key LIMIT $4 FOR UPDATE`,
        [first.id, after?.namespace ?? null, after?.key ?? '', batch],
      );
      for (const row of r.rows) {
        const aad = secretAad(row.namespace, row.key);
        try {
          const plain = open({ ciphertext: row.ciphertext, nonce: row.nonce, keyId: row.key_id }, keys, aad);
          const s = seal(plain, keys, aad);
          await c.query(`UPDATE secrets SET ciphertext = $3, nonce = $4, key_id = $5 WHERE namespace = $1 AND key = $2`, [row.namespace, row.key, s.ciphertext, s.nonce, s.keyId]);
          report.secrets++;
        } catch (err) {
          report.skipped.push({ table: 'secrets', id: `${row.namespace}/${row.key}`, keyId: row.key_id, reason: reasonOf(err) });
        }
      }
      return r.rows;
    });
    const last = rows[rows.length - 1];
    if (!last || rows.length < batch) break;
    after = { namespace: last.namespace, key: last.key };
  }

  let afterName: string | undefined;
  for (;;) {
    const rows = await inTransaction(pool, async (c) => {
      const r = await c.query<{ name: string; credentials_ciphertext: Buffer; credentials_nonce: Buffer; credentials_key_id: string }>(
        `SELECT name, credentials_ciphertext, credentials_nonce, credentials_key_id FROM secret_providers
         WHERE credentials_key_id IS NOT NULL AND credentials_key_id <> $1 AND ($2::text IS NULL OR name > $2)
         ORDER BY name LIMIT $3 FOR UPDATE`,
        [first.id, afterName ?? null, batch],
      );
      for (const row of r.rows) {
        const aad = providerCredentialsAad(row.name);
        try {
          const plain = open({ ciphertext: row.credentials_ciphertext, nonce: row.credentials_nonce, keyId: row.credentials_key_id }, keys, aad);
          const s = seal(plain, keys, aad);
          await c.query(`UPDATE secret_providers SET credentials_ciphertext = $2, credentials_nonce = $3, credentials_key_id = $4 WHERE name = $1`, [
            row.name,
            s.ciphertext,
            s.nonce,
            s.keyId,
          ]);
          report.providers++;
        } catch (err) {
          report.skipped.push({ table: 'secret_providers', id: row.name, keyId: row.credentials_key_id, reason: reasonOf(err) });
        }
      }
      return r.rows;
    });
    const last = rows[rows.length - 1];
    if (!last || rows.length < batch) break;
    afterName = last.name;
  }

  let afterPlatform: string | undefined;
  for (;;) {
    const rows = await inTransaction(pool, async (c) => {
      const r = await c.query<{ name: string; ciphertext: Buffer; nonce: Buffer; key_id: string; sealed_as: string }>(
        `SELECT name, ciphertext, nonce, key_id, sealed_as FROM platform_secrets
         WHERE (key_id <> $1 OR sealed_as <> 'platform') AND ($2::text IS NULL OR name > $2)
         ORDER BY name LIMIT $3 FOR UPDATE`,
        [first.id, afterPlatform ?? null, batch],
      );
      for (const row of r.rows) {
        try {
          const plain = open({ ciphertext: row.ciphertext, nonce: row.nonce, keyId: row.key_id }, keys, platformRowAad(row.name, row.sealed_as));
          const s = seal(plain, keys, platformSecretAad(row.name));
          await c.query(`UPDATE platform_secrets SET ciphertext = $2, nonce = $3, key_id = $4, sealed_as = 'platform' WHERE name = $1`, [row.name, s.ciphertext, s.nonce, s.keyId]);
          report.platformSecrets++;
        } catch (err) {
          report.skipped.push({ table: 'platform_secrets', id: row.name, keyId: row.key_id, reason: reasonOf(err) });
        }
      }
      return r.rows;
    });
    const last = rows[rows.length - 1];
    if (!last || rows.length < batch) break;
    afterPlatform = last.name;
  }
  return report;
}

/**
 * Master key ids used by stored secrets, provider credentials or platform
 * secrets that `keys` lacks, sorted. `/readyz` fails `master_keys` with `master_key_missing` when
 * this is not empty.
 */
export async function missingMasterKeyIds(db: Queryable, keys: readonly MasterKey[]): Promise<string[]> {
  const r = await db.query<{ key_id: string }>(
    `SELECT key_id FROM secrets UNION SELECT credentials_key_id FROM secret_providers WHERE credentials_key_id IS NOT NULL UNION SELECT key_id FROM platform_secrets ORDER BY 1`,
  );
  const have = new Set(keys.map((k) => k.id));
  return r.rows.map((x) => x.key_id).filter((id) => !have.has(id));
}

/**
 * Removes the secrets and variables of exactly one namespace (not its
 * children): the namespace delete (@svc/namespaces) calls it in its own
 * transaction, on a Prisma transaction client or a pg client, since
 * these tables have no foreign key to `namespaces`.
 */
export async function deleteNamespaceSecretsAndVariables(db: Queryable | PrismaDb, namespace: string): Promise<{ secrets: number; variables: number }> {
  if (namespace === '') throw new RangeError('the global scope is not a namespace');
  if ('$executeRaw' in db) {
    // A Prisma (interactive) transaction: the namespace delete's.
    const secrets = await db.secret.deleteMany({ where: { namespace } });
    const variables = await db.variable.deleteMany({ where: { namespace } });
    return { secrets: secrets.count, variables: variables.count };
  }
  const s = await db.query(`DELETE FROM secrets WHERE namespace = $1`, [namespace]);
  const v = await db.query(`DELETE FROM variables WHERE namespace = $1`, [namespace]);
  return { secrets: s.rowCount ?? 0, variables: v.rowCount ?? 0 };
}
