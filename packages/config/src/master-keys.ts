/** One key of `SVC_MASTER_KEYS`. The first key of the list encrypts; every listed key decrypts. */
export interface MasterKey {
  /** Stored beside each ciphertext so that the right key is picked after a rotation. */
  id: string;
  /** Exactly 32 bytes (AES-256). */
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** `SVC_MASTER_KEYS` is malformed. The message never contains key material. */
export class MasterKeysError extends Error {
  override readonly name = 'MasterKeysError';
  constructor(readonly reasons: string[]) {
    super(`${reasons.join('; ')} (make a key with: openssl rand -base64 32)`);
  }
}

/**
 * Parses `KEY_ID:BASE64[,KEY_ID:BASE64...]`. Whitespace around entries is
 * ignored; an empty or blank text gives no keys. Keys are base64 (standard,
 * padded) or unpadded base64url, since `openssl rand -base64 32` and most
 * secret managers produce one or the other.
 * @throws MasterKeysError listing every bad entry by position and id, never by value.
 */
export function parseMasterKeys(text: string): MasterKey[] {
  if (text.trim() === '') return [];
  const keys: MasterKey[] = [];
  const reasons: string[] = [];
  const seen = new Set<string>();
  text.split(',').forEach((raw, index) => {
    const entry = raw.trim();
    const where = `entry ${index + 1}`;
    if (entry === '') {
      reasons.push(`${where} is empty`);
      return;
    }
    const colon = entry.indexOf(':');
    if (colon < 0) {
      reasons.push(`${where} has no ":" (expected KEY_ID:BASE64)`);
      return;
    }
    const id = entry.slice(0, colon);
    const encoded = entry.slice(colon + 1);
    const label = KEY_ID.test(id) ? `${where} (${id})` : where;
    if (!KEY_ID.test(id)) {
      reasons.push(`${where} has an invalid key id (1 to 64 of A-Z a-z 0-9 _ -)`);
      return;
    }
    if (seen.has(id)) {
      reasons.push(`${label} repeats a key id`);
      return;
    }
    seen.add(id);
    const isBase64 = BASE64.test(encoded);
    if (encoded === '' || (!isBase64 && !BASE64URL.test(encoded))) {
      reasons.push(`${label} is not valid base64`);
      return;
    }
    const key = Buffer.from(encoded, isBase64 ? 'base64' : 'base64url');
    if (key.length !== 32) {
      reasons.push(`${label} decodes to ${key.length} bytes, expected 32`);
      return;
    }
    keys.push({ id, key });
  });
  if (reasons.length > 0) throw new MasterKeysError(reasons);
  return keys;
}
