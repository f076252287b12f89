// Builtin secrets (table `secrets`) and the resolution of any secret
// reference: builtin keys through the namespace, its parents and global;
// `<provider>:<path>[#field]` through the named provider.
import type { MasterKey } from '@svc/config';
import { openText, seal, secretAad } from './crypto.js';
import { SecretNotFoundError } from './errors.js';
import { ProviderStore } from './provider-store.js';
import { parseSecretReference } from './reference.js';
import { GLOBAL_SCOPE, scopeChain, scopeOf, type SecretScope } from './scope.js';
import { upsertSecret } from './sql/upserts.js';
import { StoreHandle, type StoreDb } from './store-db.js';

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
export type SecretCheckResult = { ok: true; scope: SecretScope } | { ok: false; reason: string; message: string };

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

const META_SELECT = { namespace: true, key: true, keyId: true, createdAt: true, updatedAt: true, updatedBy: true } as const;

function metaOf(r: { namespace: string; key: string; keyId: string; createdAt: Date; updatedAt: Date; updatedBy: string }): SecretMeta {
  return { namespace: r.namespace, key: r.key, keyId: r.keyId, createdAt: r.createdAt, updatedAt: r.updatedAt, updatedBy: r.updatedBy };
}

export interface SecretStoreOptions {
  /** The pool, a Prisma transaction (writes), or a client of a hand-written transaction (resolve). */
  db: StoreDb;
  /** `SVC_MASTER_KEYS`: the first seals, the stored key id picks the one that opens. */
  keys: readonly MasterKey[];
  /** Where `<provider>:<path>` references go. Default: none (such references are not found). */
  providers?: ProviderStore;
}

export class SecretStore {
  private readonly db: StoreHandle;
  private readonly keys: readonly MasterKey[];
  private readonly providers: ProviderStore | undefined;

  constructor(opts: SecretStoreOptions) {
    this.db = new StoreHandle(opts.db);
    this.keys = opts.keys;
    this.providers = opts.providers;
  }

  /** The store that resolves both builtin secrets and provider references (the configured providers) over one connection. */
  static withProviders(db: StoreDb, keys: readonly MasterKey[]): SecretStore {
    return new SecretStore({ db, keys, providers: new ProviderStore({ db, keys }) });
  }

  /** Same store on another connection (a transaction's client). */
  withDb(db: StoreDb): SecretStore {
    return new SecretStore({ db, keys: this.keys, ...(this.providers ? { providers: this.providers.withDb(db) } : {}) });
  }

  /**
   * Creates or replaces a secret of one scope ('' = global).
   * @throws BuiltinProviderDisabledError when no master key is configured.
   */
  async put(namespace: string, key: string, value: string, opts: { by?: string; now?: Date } = {}): Promise<{ created: boolean; secret: SecretMeta }> {
    const s = seal(value, this.keys, secretAad(namespace, key));
    const now = opts.now ?? new Date();
    const row = await upsertSecret(this.db.prisma, { namespace, key, ciphertext: s.ciphertext, nonce: s.nonce, keyId: s.keyId, now, by: opts.by ?? '' });
    return { created: row.created, secret: meta(row) };
  }

  /** True when a secret was deleted. */
  async delete(namespace: string, key: string): Promise<boolean> {
    const r = await this.db.prisma.secret.deleteMany({ where: { namespace, key } });
    return r.count > 0;
  }

  /** Metadata of one scope's secrets by key; one row more than `limit` tells the caller another page follows. */
  async list(namespace: string, opts: { limit: number; afterKey?: string }): Promise<SecretMeta[]> {
    const rows = await this.db.prisma.secret.findMany({
      where: { namespace, ...(opts.afterKey !== undefined ? { key: { gt: opts.afterKey } } : {}) },
      select: META_SELECT,
      orderBy: { key: 'asc' },
      take: opts.limit + 1,
    });
    return rows.map(metaOf);
  }

  /** Metadata of one secret of exactly this scope (no walk to parents). */
  async head(namespace: string, key: string): Promise<SecretMeta | undefined> {
    const r = await this.db.prisma.secret.findUnique({ where: { namespace_key: { namespace, key } }, select: META_SELECT });
    return r ? metaOf(r) : undefined;
  }

  /**
   * The value of `reference` as seen from `namespace` ('' = only global):
   * a builtin key from the namespace, then each parent, then global; a
   * `<provider>:<path>[#field]` from that provider.
   * @throws SecretNotFoundError, SecretReferenceError, MasterKeyMissingError,
   *   SecretDecryptError, ProviderNotFoundError, ProviderScopeError (a provider
   *   that does not serve `namespace`), ProviderError.
   */
  async resolve(namespace: string, reference: string): Promise<ResolvedSecret> {
    const ref = parseSecretReference(reference);
    if (ref.kind === 'provider') {
      if (!this.providers) throw new SecretNotFoundError(reference, [`provider:${ref.provider}`]);
      // A flow's namespace only through a provider that serves it; '' is the service's own settings (no flow).
      const provider = await this.providers.open(ref.provider, namespace === GLOBAL_SCOPE ? undefined : namespace);
      const value = await provider.get(ref.path, ref.field);
      if (value === undefined) throw new SecretNotFoundError(reference, [`provider:${ref.provider}`]);
      return { value, scope: { type: 'provider', provider: ref.provider } };
    }
    const scopes = scopeChain(namespace);
    // One query for the whole chain; the most specific scope wins.
    const r = await this.db.sql.query<SecretRow>(
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
   * For masking only: the values of the builtin secrets `namespace` can read
   * (its own, each parent's, the global ones; '' = the global ones), as they
   * are now. A secret that cannot be opened (its master key is gone) is
   * skipped and named to `onUnreadable`, never its value. What masks text
   * another reader sees is these values, so nothing outside this package
   * opens a ciphertext of `secrets` to mask with.
   */
  async valuesInScope(namespace: string, o: { onUnreadable?: (namespace: string, key: string) => void } = {}): Promise<string[]> {
    const r = await this.db.sql.query<Pick<SecretRow, 'namespace' | 'key' | 'ciphertext' | 'nonce' | 'key_id'>>(
      `SELECT namespace, key, ciphertext, nonce, key_id FROM secrets WHERE namespace = ANY($1::text[]) ORDER BY namespace, key`,
      [scopeChain(namespace)],
    );
    const out: string[] = [];
    for (const row of r.rows) {
      try {
        out.push(openText({ ciphertext: row.ciphertext, nonce: row.nonce, keyId: row.key_id }, this.keys, secretAad(row.namespace, row.key)));
      } catch {
        o.onUnreadable?.(row.namespace, row.key);
      }
    }
    return out;
  }

  /**
   * For masking only: the values of `references` (builtin keys and provider
   * references) as they resolve from `namespace` now, such as the secrets an
   * execution used. One that does not resolve any more (deleted, a provider
   * that does not answer) is skipped: there is no value to mask with.
   */
  async valuesOf(namespace: string, references: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const ref of references) {
      try {
        out.push((await this.resolve(namespace, ref)).value);
      } catch {
        // Gone or unreachable: nothing to mask against.
      }
    }
    return out;
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
