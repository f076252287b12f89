// Secret providers configured by admins (table `secret_providers`). Settings
// are plain JSON; credentials are sealed with the master key, bound to the
// provider's name, and never leave this module except into a live provider.
import type { MasterKey } from '@svc/config';
import type { Queryable } from '@svc/db';
import { openText, providerCredentialsAad, seal } from './crypto.js';
import { ProviderConfigError, ProviderExistsError, ProviderNotFoundError } from './errors.js';
import { PROVIDER_NAME_PATTERN } from './reference.js';
import { buildProvider, validateProviderSettings, type Settings, type ValidSettings } from './providers/build.js';
import type { ProviderDeps, SecretProvider } from './providers/types.js';

/** A provider as the API shows it: never its credentials. */
export interface ProviderInfo {
  name: string;
  type: string;
  config: Settings;
  enabled: boolean;
  priority: number;
  hasCredentials: boolean;
  /** Master key id that sealed the credentials; null without credentials. */
  credentialsKeyId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewProvider {
  name: string;
  type: string;
  /** Non-secret settings of the type. Default {}. */
  config?: Settings;
  /** Secret settings (e.g. `{token}` for vault), sealed at rest. Default: none. */
  credentials?: Settings;
  /** Default true. */
  enabled?: boolean;
}

export interface ProviderChange {
  /** Default: unchanged. */
  type?: string;
  /** Replaces the whole config. Default: unchanged, or {} when the type changes. */
  config?: Settings;
  /** Replaces the credentials; null removes them. Default: unchanged, or none when the type changes. */
  credentials?: Settings | null;
  /** Default: unchanged. */
  enabled?: boolean;
}

interface ProviderRow {
  name: string;
  type: string;
  config: Settings;
  credentials_ciphertext: Buffer | null;
  credentials_nonce: Buffer | null;
  credentials_key_id: string | null;
  enabled: boolean;
  priority: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `name, type, config, credentials_ciphertext, credentials_nonce, credentials_key_id, enabled, priority, created_at, updated_at`;

function info(r: ProviderRow): ProviderInfo {
  return {
    name: r.name,
    type: r.type,
    config: r.config,
    enabled: r.enabled,
    priority: r.priority,
    hasCredentials: r.credentials_ciphertext !== null,
    credentialsKeyId: r.credentials_key_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface ProviderStoreOptions {
  /** A pool, or a client inside the caller's transaction. */
  db: Queryable;
  /** `SVC_MASTER_KEYS`; the first seals credentials. */
  keys: readonly MasterKey[];
  /** Resources of live providers (environment, fetch, timeout). Default: the process's. */
  providerDeps?: ProviderDeps;
}

export class ProviderStore {
  private readonly db: Queryable;
  private readonly keys: readonly MasterKey[];
  private readonly deps: ProviderDeps;

  constructor(opts: ProviderStoreOptions) {
    this.db = opts.db;
    this.keys = opts.keys;
    this.deps = opts.providerDeps ?? {};
  }

  /** Same store on another connection (a transaction's client). */
  withDb(db: Queryable): ProviderStore {
    return new ProviderStore({ db, keys: this.keys, providerDeps: this.deps });
  }

  private sealCredentials(name: string, s: ValidSettings) {
    if (s.credentials === undefined) return { ciphertext: null, nonce: null, keyId: null };
    return seal(JSON.stringify(s.credentials), this.keys, providerCredentialsAad(name));
  }

  private openCredentials(r: ProviderRow): Settings | undefined {
    if (r.credentials_ciphertext === null || r.credentials_nonce === null || r.credentials_key_id === null) return undefined;
    const text = openText({ ciphertext: r.credentials_ciphertext, nonce: r.credentials_nonce, keyId: r.credentials_key_id }, this.keys, providerCredentialsAad(r.name));
    return JSON.parse(text) as Settings;
  }

  private async row(name: string, lock = false): Promise<ProviderRow | undefined> {
    const r = await this.db.query<ProviderRow>(`SELECT ${COLUMNS} FROM secret_providers WHERE name = $1${lock ? ' FOR UPDATE' : ''}`, [name]);
    return r.rows[0];
  }

  /**
   * @throws ProviderConfigError (bad name, type, config or credentials),
   *   BuiltinProviderDisabledError (credentials but no master key), ProviderExistsError.
   */
  async create(p: NewProvider, now = new Date()): Promise<ProviderInfo> {
    if (!PROVIDER_NAME_PATTERN.test(p.name)) {
      throw new ProviderConfigError([{ field: 'name', message: 'must have 1 to 63 of a-z 0-9 _ - and start with a letter or digit' }]);
    }
    const s = validateProviderSettings(p.type, p.config ?? {}, p.credentials);
    const sealed = this.sealCredentials(p.name, s);
    const r = await this.db.query<ProviderRow>(
      `INSERT INTO secret_providers (name, type, config, credentials_ciphertext, credentials_nonce, credentials_key_id, enabled, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
      [p.name, s.type, JSON.stringify(s.config), sealed.ciphertext, sealed.nonce, sealed.keyId, p.enabled ?? true, now],
    );
    if (!r.rows[0]) throw new ProviderExistsError(p.name);
    return info(r.rows[0]);
  }

  /**
   * Replaces the settings given in `change`. Run it in a transaction when
   * concurrent updates matter: it locks the row.
   * @throws ProviderNotFoundError, ProviderConfigError, BuiltinProviderDisabledError,
   *   MasterKeyMissingError (kept credentials sealed with a key no longer listed).
   */
  async update(name: string, change: ProviderChange, now = new Date()): Promise<ProviderInfo> {
    const cur = await this.row(name, true);
    if (!cur) throw new ProviderNotFoundError(name);
    const type = change.type ?? cur.type;
    const retyped = type !== cur.type;
    const config = change.config ?? (retyped ? {} : cur.config);
    const credentials = change.credentials === null ? undefined : (change.credentials ?? (retyped ? undefined : this.openCredentials(cur)));
    const s = validateProviderSettings(type, config, credentials);
    const sealed = this.sealCredentials(name, s);
    const r = await this.db.query<ProviderRow>(
      `UPDATE secret_providers SET type = $2, config = $3, credentials_ciphertext = $4, credentials_nonce = $5, credentials_key_id = $6,
         enabled = $7, updated_at = $8 WHERE name = $1 RETURNING ${COLUMNS}`,
      [name, s.type, JSON.stringify(s.config), sealed.ciphertext, sealed.nonce, sealed.keyId, change.enabled ?? cur.enabled, now],
    );
    if (!r.rows[0]) throw new ProviderNotFoundError(name);
    return info(r.rows[0]);
  }

  /** True when a provider was deleted. */
  async delete(name: string): Promise<boolean> {
    const r = await this.db.query(`DELETE FROM secret_providers WHERE name = $1`, [name]);
    return (r.rowCount ?? 0) > 0;
  }

  async get(name: string): Promise<ProviderInfo | undefined> {
    const r = await this.row(name);
    return r ? info(r) : undefined;
  }

  /** By name; one row more than `limit` tells the caller another page follows. */
  async list(opts: { limit: number; afterName?: string }): Promise<ProviderInfo[]> {
    const r = await this.db.query<ProviderRow>(
      `SELECT ${COLUMNS} FROM secret_providers WHERE ($1::text IS NULL OR name > $1) ORDER BY name LIMIT $2`,
      [opts.afterName ?? null, opts.limit + 1],
    );
    return r.rows.map(info);
  }

  /**
   * The live provider `name`, credentials opened.
   * @throws ProviderNotFoundError (absent or disabled), MasterKeyMissingError, SecretDecryptError.
   */
  async open(name: string): Promise<SecretProvider> {
    const r = await this.row(name);
    if (!r) throw new ProviderNotFoundError(name);
    if (!r.enabled) throw new ProviderNotFoundError(name, true);
    const s = validateProviderSettings(r.type, r.config, this.openCredentials(r));
    return buildProvider(name, s, this.deps);
  }

  /**
   * Whether provider `name` answers. Failures to open it (a missing master
   * key, stored settings this build rejects) are reported, not thrown.
   * @throws ProviderNotFoundError when there is no such provider.
   */
  async check(name: string): Promise<{ ok: boolean; message: string }> {
    const r = await this.row(name);
    if (!r) throw new ProviderNotFoundError(name);
    let provider: SecretProvider;
    try {
      provider = await this.open(name);
    } catch (err) {
      return { ok: false, message: err instanceof Error ? err.message : String(err) };
    }
    return provider.check();
  }
}
