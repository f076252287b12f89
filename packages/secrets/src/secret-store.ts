// Builtin secrets (table `secrets`) and the resolution of any secret
// reference: builtin keys through the namespace, its parents and global;
// `<provider>:<path>[#field]` through the named provider.
import type { MasterKey } from '@svc/config';
import type { Queryable } from '@svc/db';
import { openText, seal, secretAad } from './crypto.js';
import { SecretNotFoundError } from './errors.js';
import type { ProviderStore } from './provider-store.js';
import { parseSecretReference } from './reference.js';
import { scopeChain, scopeOf, type SecretScope } from './scope.js';

/** A secret without its value. */
export interface SecretMeta {
  /** '' for the global scope. */
  namespace: string;
  key: string;
  /** Master key id that sealed it. */
  keyId: string;
  createdAt: Date;
  updatedAt: Date;
  /** Who wrote it last (a user id); '' when unknown. */
  updatedBy: string;
}

export interface ResolvedSecret {
  value: string;
  scope: SecretScope;
}

/** Outcome of `check`: where the reference resolves, or why it does not. Never the value. */
export type SecretCheckResult =
  | { ok: true; scope: SecretScope }
  | { ok: false; reason: string; message: string };

interface SecretRow {
  namespace: string;
  key: string;
  ciphertext: Buffer;
  nonce: Buffer;
  key_id: string;
  created_at: Date;
  updated_at: Date;
  updated_by: string;
}

function meta(r: Omit<SecretRow, 'ciphertext' | 'nonce'>): SecretMeta {
  return { namespace: r.namespace, key: r.key, keyId: r.key_id, createdAt: r.created_at, updatedAt: r.updated_at, updatedBy: r.updated_by };
}

export interface SecretStoreOptions {
  /** A pool, or a client inside the caller's transaction. */
  db: Queryable;
  /** `SVC_MASTER_KEYS`: the first seals, the stored key id picks the one that opens. */
  keys: readonly MasterKey[];
  /** Where `<provider>:<path>` references go. Default: none (such references are not found). */
  providers?: ProviderStore;
}

export class SecretStore {
  private readonly db: Queryable;
  private readonly keys: readonly MasterKey[];
  private readonly providers: ProviderStore | undefined;

  constructor(opts: SecretStoreOptions) {
    this.db = opts.db;
    this.keys = opts.keys;
    this.providers = opts.providers;
  }

  /** Same store on another connection (a transaction's client). */
  withDb(db: Queryable): SecretStore {
    return new SecretStore({ db, keys: this.keys, ...(this.providers ? { providers: this.providers.withDb(db) } : {}) });
  }

  /**
   * Creates or replaces a secret of one scope ('' = global).
   * @throws BuiltinProviderDisabledError when no master key is configured.
   */
  async put(namespace: string, key: string, value: string, opts: { by?: string; now?: Date } = {}): Promise<{ created: boolean; secret: SecretMeta }> {
    const s = seal(value, this.keys, secretAad(namespace, key));
    const now = opts.now ?? new Date();
    const r = await this.db.query<SecretRow & { created: boolean }>(
      `INSERT INTO secrets (namespace, key, ciphertext, nonce, key_id, created_at, updated_at, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
       ON CONFLICT (namespace, key) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, nonce = EXCLUDED.nonce, key_id = EXCLUDED.key_id,
         updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
       RETURNING namespace, key, key_id, created_at, updated_at, updated_by, (xmax = 0) AS created`,
      [namespace, key, s.ciphertext, s.nonce, s.keyId, now, opts.by ?? ''],
    );
    const row = r.rows[0]!;
    return { created: row.created, secret: meta(row) };
  }

  /** True when a secret was deleted. */
  async delete(namespace: string, key: string): Promise<boolean> {
    const r = await this.db.query(`DELETE FROM secrets WHERE namespace = $1 AND key = $2`, [namespace, key]);
    return (r.rowCount ?? 0) > 0;
  }

  /** Metadata of one scope's secrets by key; one row more than `limit` tells the caller another page follows. */
  async list(namespace: string, opts: { limit: number; afterKey?: string }): Promise<SecretMeta[]> {
    const r = await this.db.query<SecretRow>(
      `SELECT namespace, key, key_id, created_at, updated_at, updated_by FROM secrets
       WHERE namespace = $1 AND ($2::text IS NULL OR key > $2) ORDER BY key LIMIT $3`,
      [namespace, opts.afterKey ?? null, opts.limit + 1],
    );
    return r.rows.map(meta);
  }

  /** Metadata of one secret of exactly this scope (no walk to parents). */
  async head(namespace: string, key: string): Promise<SecretMeta | undefined> {
    const r = await this.db.query<SecretRow>(
      `SELECT namespace, key, key_id, created_at, updated_at, updated_by FROM secrets WHERE namespace = $1 AND key = $2`,
      [namespace, key],
    );
    return r.rows[0] ? meta(r.rows[0]) : undefined;
  }

  /**
   * The value of `reference` as seen from `namespace` ('' = only global):
   * a builtin key from the namespace, then each parent, then global; a
   * `<provider>:<path>[#field]` from that provider.
   * @throws SecretNotFoundError, SecretReferenceError, MasterKeyMissingError,
   *   SecretDecryptError, ProviderNotFoundError, ProviderError.
   */
  async resolve(namespace: string, reference: string): Promise<ResolvedSecret> {
    const ref = parseSecretReference(reference);
    if (ref.kind === 'provider') {
      if (!this.providers) throw new SecretNotFoundError(reference, [`provider:${ref.provider}`]);
      const provider = await this.providers.open(ref.provider);
      const value = await provider.get(ref.path, ref.field);
      if (value === undefined) throw new SecretNotFoundError(reference, [`provider:${ref.provider}`]);
      return { value, scope: { type: 'provider', provider: ref.provider } };
    }
    const scopes = scopeChain(namespace);
    // One query for the whole chain; the most specific scope wins.
    const r = await this.db.query<SecretRow>(
      `SELECT namespace, key, ciphertext, nonce, key_id FROM secrets WHERE key = $1 AND namespace = ANY($2::text[])
       ORDER BY length(namespace) DESC LIMIT 1`,
      [ref.key, scopes],
    );
    const row = r.rows[0];
    if (!row) throw new SecretNotFoundError(ref.key, scopes);
    const value = openText({ ciphertext: row.ciphertext, nonce: row.nonce, keyId: row.key_id }, this.keys, secretAad(row.namespace, row.key));
    return { value, scope: scopeOf(row.namespace) };
  }

  /**
   * Like `resolve`, but answers where the reference resolves instead of its
   * value, and reports failures (not found, a missing master key, a provider
   * that does not answer) rather than throwing them.
   * @throws SecretReferenceError: a malformed reference is the caller's mistake, not an answer.
   */
  async check(namespace: string, reference: string): Promise<SecretCheckResult> {
    parseSecretReference(reference);
    try {
      const { scope } = await this.resolve(namespace, reference);
      return { ok: true, scope };
    } catch (err) {
      const reason = (err as { reason?: unknown }).reason;
      // Only this package's errors, whose messages carry names and never values, are reported.
      if (typeof reason === 'string' && err instanceof Error) return { ok: false, reason, message: err.message };
      throw err;
    }
  }
}
