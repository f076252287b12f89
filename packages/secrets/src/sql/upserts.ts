// Create-or-replace of secrets and variables in one statement that also says
// which it did (`xmax = 0` only on a freshly inserted row): Prisma's upsert
// cannot tell, and the API answers and audits `created`. Run through Prisma's
// raw query, so they join the caller's Prisma transaction.
import type { PrismaDb } from '@svc/db';

export interface UpsertedRow {
  namespace: string;
  key: string;
  created_at: Date;
  updated_at: Date;
  updated_by: string;
  created: boolean;
}

export async function upsertVariable(db: PrismaDb, v: { namespace: string; key: string; value: string; now: Date; by: string }): Promise<UpsertedRow & { value: string }> {
  const rows = await db.$queryRaw<(UpsertedRow & { value: string })[]>`
    INSERT INTO variables (namespace, key, value, created_at, updated_at, updated_by) VALUES (${v.namespace}, ${v.key}, ${v.value}, ${v.now}, ${v.now}, ${v.by})
    ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
    RETURNING namespace, key, value, created_at, updated_at, updated_by, (xmax = 0) AS created`;
  return rows[0];
}

export async function upsertSecret(
  db: PrismaDb,
  s: { namespace: string; key: string; ciphertext: Buffer; nonce: Buffer; keyId: string; now: Date; by: string },
): Promise<UpsertedRow & { key_id: string }> {
  const rows = await db.$queryRaw<(UpsertedRow & { key_id: string })[]>`
    INSERT INTO secrets (namespace, key, ciphertext, nonce, key_id, created_at, updated_at, updated_by)
    VALUES (${s.namespace}, ${s.key}, ${s.ciphertext}, ${s.nonce}, ${s.keyId}, ${s.now}, ${s.now}, ${s.by})
    ON CONFLICT (namespace, key) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, nonce = EXCLUDED.nonce, key_id = EXCLUDED.key_id,
      updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
    RETURNING namespace, key, key_id, created_at, updated_at, updated_by, (xmax = 0) AS created`;
  return rows[0];
}

/** Locks a provider's row for a read-modify-write (update); false when there is none. */
export async function lockProvider(db: PrismaDb, name: string): Promise<boolean> {
  return (await db.$executeRaw`SELECT 1 FROM secret_providers WHERE name = ${name} FOR UPDATE`) > 0;
}

export async function upsertPlatformSecret(
  db: PrismaDb,
  s: { name: string; ciphertext: Buffer; nonce: Buffer; keyId: string; now: Date; by: string },
): Promise<Omit<UpsertedRow, 'namespace' | 'key'> & { name: string; key_id: string; sealed_as: string }> {
  const rows = await db.$queryRaw<(Omit<UpsertedRow, 'namespace' | 'key'> & { name: string; key_id: string; sealed_as: string })[]>`
    INSERT INTO platform_secrets (name, ciphertext, nonce, key_id, sealed_as, created_at, updated_at, updated_by)
    VALUES (${s.name}, ${s.ciphertext}, ${s.nonce}, ${s.keyId}, 'platform', ${s.now}, ${s.now}, ${s.by})
    ON CONFLICT (name) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, nonce = EXCLUDED.nonce, key_id = EXCLUDED.key_id, sealed_as = 'platform',
      updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
    RETURNING name, key_id, sealed_as, created_at, updated_at, updated_by, (xmax = 0) AS created`;
  return rows[0];
}
