// Platform credentials (table `platform_secrets`): what the git
// sources and single sign-on authenticate with. Sealed with the master keys
// like builtin secrets, under a context of their own (platformSecretAad), and
// read only by the code that uses them (the git sync and push, the git push
// webhook, the OIDC login). Nothing that resolves a secret reference looks
// here: `secret()` in a task, alert channels, trigger inputs and the AI
// masker go through SecretStore, whose resolution reads `secrets` and the
// providers only. Writes are the admin's (the gateway's platform secret
// operations) and the upgrade migration's.
import type { MasterKey } from '@svc/config';
import { openText, platformSecretAad, seal, secretAad } from './crypto.js';
import { PlatformSecretNotFoundError } from './errors.js';
import { BUILTIN_KEY_PATTERN } from './reference.js';
import { GLOBAL_SCOPE } from './scope.js';
import { upsertPlatformSecret } from './sql/upserts.js';
import { StoreHandle, type StoreDb } from './store-db.js';

/** How a row was sealed: as a platform secret, or (copied by the upgrade) as the global secret of the same name. */
export type PlatformSealedAs = 'platform' | 'global_secret';

/** A platform secret without its value. */
export interface PlatformSecretMeta {
  name: string;
  /** Master key id that sealed it. */
  keyId: string;
  sealedAs: PlatformSealedAs;
  createdAt: Date;
  updatedAt: Date;
  /** Who wrote it last (a user id); '' when unknown (the upgrade copies the global secret's). */
  updatedBy: string;
}

/** A platform secret as an admin lists it: also whether a flow-readable global secret has the same name. */
export interface PlatformSecretListed extends PlatformSecretMeta {
  /**
   * A global secret of the same name exists (after the upgrade, the copy's
   * source): flows can read that one, so the credential is not out of their
   * reach until it is deleted.
   */
  globalCopy: boolean;
}

/** Names a platform secret may have: those of builtin secret keys, so the upgrade keeps every name. */
export const PLATFORM_SECRET_NAME_PATTERN = BUILTIN_KEY_PATTERN;

/** The context a row of `sealedAs` opens under. */
export function platformRowAad(name: string, sealedAs: string): string {
  return sealedAs === 'global_secret' ? secretAad(GLOBAL_SCOPE, name) : platformSecretAad(name);
}

const META_SELECT = { name: true, keyId: true, sealedAs: true, createdAt: true, updatedAt: true, updatedBy: true } as const;

function metaOf(r: { name: string; keyId: string; sealedAs: string; createdAt: Date; updatedAt: Date; updatedBy: string }): PlatformSecretMeta {
  return { name: r.name, keyId: r.keyId, sealedAs: r.sealedAs as PlatformSealedAs, createdAt: r.createdAt, updatedAt: r.updatedAt, updatedBy: r.updatedBy };
}

export interface PlatformSecretStoreOptions {
  /** The pool or a Prisma transaction. */
  db: StoreDb;
  /** `SVC_MASTER_KEYS`: the first seals, the stored key id picks the one that opens. */
  keys: readonly MasterKey[];
}

export class PlatformSecretStore {
  private readonly db: StoreHandle;
  private readonly keys: readonly MasterKey[];

  constructor(opts: PlatformSecretStoreOptions) {
    this.db = new StoreHandle(opts.db);
    this.keys = opts.keys;
  }

  /** Same store on another connection (a Prisma transaction). */
  withDb(db: StoreDb): PlatformSecretStore {
    return new PlatformSecretStore({ db, keys: this.keys });
  }

  /**
   * Creates or replaces a platform secret.
   * @throws BuiltinProviderDisabledError when no master key is configured.
   */
  async put(name: string, value: string, opts: { by?: string; now?: Date } = {}): Promise<{ created: boolean; secret: PlatformSecretMeta }> {
    if (!PLATFORM_SECRET_NAME_PATTERN.test(name)) throw new RangeError(`${JSON.stringify(name)} is not a platform secret name`);
    const s = seal(value, this.keys, platformSecretAad(name));
    const now = opts.now ?? new Date();
    const row = await upsertPlatformSecret(this.db.prisma, { name, ciphertext: s.ciphertext, nonce: s.nonce, keyId: s.keyId, now, by: opts.by ?? '' });
    return {
      created: row.created,
      secret: metaOf({ name: row.name, keyId: row.key_id, sealedAs: row.sealed_as, createdAt: row.created_at, updatedAt: row.updated_at, updatedBy: row.updated_by }),
    };
  }

  /** True when a platform secret was deleted. */
  async delete(name: string): Promise<boolean> {
    return (await this.db.prisma.platformSecret.deleteMany({ where: { name } })).count > 0;
  }

  /** Platform secrets by name, without values; one row more than `limit` tells the caller another page follows. */
  async list(opts: { limit: number; afterName?: string }): Promise<PlatformSecretListed[]> {
    const rows = await this.db.prisma.platformSecret.findMany({
      where: opts.afterName !== undefined ? { name: { gt: opts.afterName } } : {},
      select: META_SELECT,
      orderBy: { name: 'asc' },
      take: opts.limit + 1,
    });
    const twins = await this.db.prisma.secret.findMany({ where: { namespace: GLOBAL_SCOPE, key: { in: rows.map((r) => r.name) } }, select: { key: true } });
    const global = new Set(twins.map((t) => t.key));
    return rows.map((r) => ({ ...metaOf(r), globalCopy: global.has(r.name) }));
  }

  /** Metadata of one platform secret. */
  async head(name: string): Promise<PlatformSecretListed | undefined> {
    const r = await this.db.prisma.platformSecret.findUnique({ where: { name }, select: META_SELECT });
    if (!r) return undefined;
    const twin = await this.db.prisma.secret.findUnique({ where: { namespace_key: { namespace: GLOBAL_SCOPE, key: name } }, select: { key: true } });
    return { ...metaOf(r), globalCopy: twin !== null };
  }

  /**
   * The value of a platform secret, for the service that authenticates with
   * it. Never for a task, an alert or anything a flow controls.
   * @throws PlatformSecretNotFoundError, MasterKeyMissingError, SecretDecryptError.
   */
  async read(name: string): Promise<string> {
    const r = await this.db.prisma.platformSecret.findUnique({ where: { name }, select: { ciphertext: true, nonce: true, keyId: true, sealedAs: true } });
    if (!r) throw new PlatformSecretNotFoundError(name);
    return openText({ ciphertext: Buffer.from(r.ciphertext), nonce: Buffer.from(r.nonce), keyId: r.keyId }, this.keys, platformRowAad(name, r.sealedAs));
  }

  /**
   * Why a setting may not name `name` as its platform credential, or null
   * when a platform secret of that name exists. A name that only a global or
   * namespace secret has is refused as flow-readable: the setting would send
   * a credential every flow (of that namespace) can read.
   */
  async settingProblem(name: string): Promise<string | null> {
    if (!PLATFORM_SECRET_NAME_PATTERN.test(name)) return 'is not a platform secret name (1 to 255 of A-Z a-z 0-9 _ . -)';
    if (await this.head(name)) return null;
    const flowReadable = await this.db.prisma.secret.findFirst({ where: { key: name }, select: { namespace: true }, orderBy: { namespace: 'asc' } });
    if (flowReadable) {
      const where = flowReadable.namespace === GLOBAL_SCOPE ? 'a global secret' : `a secret of namespace ${flowReadable.namespace}`;
      return `${name} is ${where}, which flows can read: store the credential as a platform secret (PUT /api/v1/platform-secrets/${name}, svc platform-secret set ${name}) and name that`;
    }
    return `no platform secret ${name}: set it first (PUT /api/v1/platform-secrets/${name}, svc platform-secret set ${name})`;
  }
}
