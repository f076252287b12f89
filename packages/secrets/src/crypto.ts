// AES-256-GCM sealing with the keys of SVC_MASTER_KEYS. The first key seals;
// the id stored beside each ciphertext picks the key that opens it, so keys
// rotate without downtime: add the new key first, keep the old one listed
// until `rewrapSecrets` has moved every row, then drop it.
import crypto from 'node:crypto';
import type { MasterKey } from '@svc/config';
import { BuiltinProviderDisabledError, MasterKeyMissingError, SecretDecryptError } from './errors.js';

/** What a row stores: `ciphertext` is the encrypted bytes followed by the 16-byte GCM tag. */
export interface Sealed {
  ciphertext: Buffer;
  /** 12 random bytes, new for every seal (GCM must never reuse a nonce under one key). */
  nonce: Buffer;
  /** Id of the master key that sealed it. */
  keyId: string;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Additional authenticated data of a builtin secret: the row's identity. A
 * ciphertext copied into another row (another key or scope) fails to open
 * instead of silently serving one secret under another name.
 */
export function secretAad(namespace: string, key: string): string {
  return `svc/secret/v1\0${namespace}\0${key}`;
}

/**
 * Additional authenticated data of a platform secret (platform-store.ts): a
 * context of its own, so a platform ciphertext copied into `secrets` never
 * opens there as a secret a flow could resolve.
 */
export function platformSecretAad(name: string): string {
  return `svc/platform-secret/v1\0${name}`;
}

/** Additional authenticated data of a provider's credentials. */
export function providerCredentialsAad(provider: string): string {
  return `svc/secret-provider/v1\0${provider}`;
}

function assertKey(k: MasterKey): void {
  // parseMasterKeys already checks this; keys built by hand (tests, the CLI) must not slip past.
  if (k.key.length !== 32) throw new RangeError(`master key ${k.id} must be 32 bytes, not ${k.key.length}`);
}

/**
 * Encrypts with the first key of `keys`, binding `aad` (use `secretAad` or
 * `providerCredentialsAad`).
 * @throws BuiltinProviderDisabledError when `keys` is empty.
 */
export function seal(plaintext: string | Buffer, keys: readonly MasterKey[], aad: string): Sealed {
  const k = keys[0];
  if (!k) throw new BuiltinProviderDisabledError();
  assertKey(k);
  const nonce = crypto.randomBytes(NONCE_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', k.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext), cipher.final()]);
  return { ciphertext: Buffer.concat([body, cipher.getAuthTag()]), nonce, keyId: k.id };
}

/**
 * Decrypts with the key whose id is `sealed.keyId`.
 * @throws MasterKeyMissingError when no listed key has that id.
 * @throws SecretDecryptError when the ciphertext, nonce or `aad` do not authenticate.
 */
export function open(sealed: Sealed, keys: readonly MasterKey[], aad: string): Buffer {
  const k = keys.find((x) => x.id === sealed.keyId);
  if (!k) throw new MasterKeyMissingError(sealed.keyId);
  assertKey(k);
  if (sealed.nonce.length !== NONCE_BYTES || sealed.ciphertext.length < TAG_BYTES) throw new SecretDecryptError(sealed.keyId);
  const body = sealed.ciphertext.subarray(0, sealed.ciphertext.length - TAG_BYTES);
  const tag = sealed.ciphertext.subarray(sealed.ciphertext.length - TAG_BYTES);
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', k.key, sealed.nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch (err) {
    throw new SecretDecryptError(sealed.keyId, { cause: err });
  }
}

/** `open` as UTF-8 text. */
export function openText(sealed: Sealed, keys: readonly MasterKey[], aad: string): string {
  return open(sealed, keys, aad).toString('utf8');
}

/** A fresh random master key (32 bytes), e.g. for embedded mode or tests. */
export function generateMasterKey(id: string): MasterKey {
  return { id, key: crypto.randomBytes(32) };
}

/** `KEY_ID:BASE64` entries as `SVC_MASTER_KEYS` expects them. */
export function formatMasterKeys(keys: readonly MasterKey[]): string {
  return keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join(',');
}
