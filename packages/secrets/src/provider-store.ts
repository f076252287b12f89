// Secret providers configured by admins (table `secret_providers`). Settings
// are plain JSON; credentials are sealed with the master key, bound to the
// provider's name, and never leave this module except into a live provider.
import type { MasterKey } from '@svc/config';
import type { Prisma } from '@svc/db';
import { openText, providerCredentialsAad, seal } from './crypto.js';
import { ProviderConfigError, ProviderExistsError, ProviderNotFoundError } from './errors.js';
import { parseProviderScope, providerServes, ProviderScopeError } from './provider-scope.js';
import { PROVIDER_NAME_PATTERN } from './reference.js';
import { buildProvider, validateProviderSettings, type Settings, type ValidSettings } from './providers/build.js';
import type { ProviderDeps, SecretProvider } from './providers/types.js';
import { lockProvider } from './sql/upserts.js';
import { StoreHandle, type StoreDb } from './store-db.js';

/** A provider as the API shows it: never its credentials. */
export interface ProviderInfo {
  name: string;
  type: string;
  config: Settings;
  enabled: boolean;
  priority: number;
  /** Namespaces served, each covering its children; `*` every namespace; empty none (provider-scope.ts). */
  namespaces: string[];
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
  /** Namespaces served (each covering its children, `*` every one). Default: none. */
  namespaces?: string[];
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
  /** Replaces the namespaces served. Default: unchanged. */
  namespaces?: string[];
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
  namespaces: string[];
  created_at: Date;
  updated_at: Date;
}

type ProviderModel = {
  name: string;
  type: string;
  config: unknown;
  credentialsCiphertext: Uint8Array | null;
  credentialsNonce: Uint8Array | null;
  credentialsKeyId: string | null;
  enabled: boolean;
  priority: number;
  namespaces: string[];
  createdAt: Date;
  updatedAt: Date;
};

/** A scope as given, checked (ProviderConfigError naming `namespaces[i]`). */
function checkedScope(scope: unknown): string[] {
  const r = parseProviderScope(scope);
  if (r.problems.length) throw new ProviderConfigError(r.problems);
  return r.namespaces;
}

// Prisma returns Bytes as Uint8Array and types its input as one over a plain
// ArrayBuffer; the crypto works on Buffers.
const buf = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
const bytes = (b: Buffer | null) => (b === null ? null : new Uint8Array(b));

function providerRow(m: ProviderModel): ProviderRow {
  return {
    name: m.name,
    type: m.type,
    config: m.config as Settings,
    credentials_ciphertext: buf(m.credentialsCiphertext),
    credentials_nonce: buf(m.credentialsNonce),
    credentials_key_id: m.credentialsKeyId,
    enabled: m.enabled,
    priority: m.priority,
    namespaces: m.namespaces,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

function info(r: ProviderRow): ProviderInfo {
  return {
    name: r.name,
    type: r.type,
    config: r.config,
    enabled: r.enabled,
    priority: r.priority,
    namespaces: r.namespaces,
    hasCredentials: r.credentials_ciphertext !== null,
    credentialsKeyId: r.credentials_key_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface ProviderStoreOptions {
  /** The pool or a Prisma client or transaction. */
  db: StoreDb;
  /** `SVC_MASTER_KEYS`; the first seals credentials. */
  keys: readonly MasterKey[];
  /** Resources of live providers (environment, fetch, timeout). Default: the process's. */
  providerDeps?: ProviderDeps;
}

export class ProviderStore {
  private readonly db: StoreHandle;
  private readonly keys: readonly MasterKey[];
  private readonly deps: ProviderDeps;

  constructor(opts: ProviderStoreOptions) {
    this.db = new StoreHandle(opts.db);
    this.keys = opts.keys;
    this.deps = opts.providerDeps ?? {};
  }

  /** Same store on another connection (a transaction's client). */
  withDb(db: StoreDb): ProviderStore {
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

  private async row(name: string): Promise<ProviderRow | undefined> {
    const r = await this.db.prisma.secretProvider.findUnique({ where: { name } });
    return r ? providerRow(r) : undefined;
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
    const scope = checkedScope(p.namespaces ?? []);
    const sealed = this.sealCredentials(p.name, s);
    // skipDuplicates is ON CONFLICT DO NOTHING: a taken name returns no row and leaves the caller's transaction usable.
    const [created] = await this.db.prisma.secretProvider.createManyAndReturn({
      data: [
        {
          name: p.name,
          type: s.type,
          config: s.config as Prisma.InputJsonObject,
          credentialsCiphertext: bytes(sealed.ciphertext),
          credentialsNonce: bytes(sealed.nonce),
          credentialsKeyId: sealed.keyId,
          enabled: p.enabled ?? true,
          namespaces: scope,
          createdAt: now,
          updatedAt: now,
        },
      ],
      skipDuplicates: true,
    });
    if (!created) throw new ProviderExistsError(p.name);
    return info(providerRow(created));
  }

  /**
   * Replaces the settings given in `change`. Give the store a Prisma
   * transaction when concurrent updates matter: it locks the row.
   * @throws ProviderNotFoundError, ProviderConfigError, BuiltinProviderDisabledError,
   *   MasterKeyMissingError (kept credentials sealed with a key no longer listed).
   */
  async update(name: string, change: ProviderChange, now = new Date()): Promise<ProviderInfo> {
    const locked = await lockProvider(this.db.prisma, name);
    const cur = locked ? await this.row(name) : undefined;
    if (!cur) throw new ProviderNotFoundError(name);
    const type = change.type ?? cur.type;
    const retyped = type !== cur.type;
    const config = change.config ?? (retyped ? {} : cur.config);
    const credentials = change.credentials === null ? undefined : (change.credentials ?? (retyped ? undefined : this.openCredentials(cur)));
    const s = validateProviderSettings(type, config, credentials);
    const scope = change.namespaces === undefined ? cur.namespaces : checkedScope(change.namespaces);
    const sealed = this.sealCredentials(name, s);
    const r = await this.db.prisma.secretProvider.updateManyAndReturn({
      where: { name },
      data: {
        type: s.type,
        config: s.config as Prisma.InputJsonObject,
        credentialsCiphertext: bytes(sealed.ciphertext),
        credentialsNonce: bytes(sealed.nonce),
        credentialsKeyId: sealed.keyId,
        enabled: change.enabled ?? cur.enabled,
        namespaces: scope,
        updatedAt: now,
      },
    });
    if (!r[0]) throw new ProviderNotFoundError(name);
    return info(providerRow(r[0]));
  }

  /** True when a provider was deleted. */
  async delete(name: string): Promise<boolean> {
    const r = await this.db.prisma.secretProvider.deleteMany({ where: { name } });
    return r.count > 0;
  }

  async get(name: string): Promise<ProviderInfo | undefined> {
    const r = await this.row(name);
    return r ? info(r) : undefined;
  }

  /** By name; one row more than `limit` tells the caller another page follows. */
  async list(opts: { limit: number; afterName?: string }): Promise<ProviderInfo[]> {
    const rows = await this.db.prisma.secretProvider.findMany({
      where: opts.afterName !== undefined ? { name: { gt: opts.afterName } } : {},
      orderBy: { name: 'asc' },
      take: opts.limit + 1,
    });
    return rows.map((r) => info(providerRow(r)));
  }

  /**
   * The live provider `name`, credentials opened. With `forNamespace` (a
   * flow's namespace), only when the provider serves it; without (the
   * service's own settings, the check of an admin), whatever its scope.
   * @throws ProviderNotFoundError (absent or disabled), ProviderScopeError, MasterKeyMissingError, SecretDecryptError.
   */
  async open(name: string, forNamespace?: string): Promise<SecretProvider> {
    const r = await this.row(name);
    if (!r) throw new ProviderNotFoundError(name);
    if (!r.enabled) throw new ProviderNotFoundError(name, true);
    if (forNamespace !== undefined && !providerServes(r.namespaces, forNamespace)) throw new ProviderScopeError(name, forNamespace);
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
