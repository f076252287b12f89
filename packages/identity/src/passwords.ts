// Passwords: bcrypt, with a policy checked before hashing.
import crypto from 'node:crypto';
import bcrypt from 'bcrypt';
import { randomBase62 } from './secrets.js';

/** bcrypt work factor: about 50 ms per hash on a current server core. */
export const BCRYPT_COST = 10;
export const MIN_PASSWORD_LENGTH = 8;
/** bcrypt reads only the first 72 bytes; longer passwords are refused rather than silently cut. */
export const MAX_PASSWORD_BYTES = 72;

export class PasswordPolicyError extends Error {
  override readonly name = 'PasswordPolicyError';
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return `must be at most ${MAX_PASSWORD_BYTES} bytes long (UTF-8)`;
  if (password.trim().length === 0) return 'must not be only white space';
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw new PasswordPolicyError(`password ${problem}`);
  return bcrypt.hash(password, BCRYPT_COST);
}

let dummyHash: Promise<string> | undefined;

/**
 * Compares a password with a stored hash. With no hash (unknown user) it
 * compares against a throwaway hash of the same cost, so the answer takes as
 * long for an unknown email as for a known one.
 */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  const h = hash ?? (await (dummyHash ??= bcrypt.hash(crypto.randomBytes(16).toString('hex'), BCRYPT_COST)));
  const ok = await bcrypt.compare(password.slice(0, 1024), h);
  return ok && hash != null;
}

/** A temporary password shown once (20 base62 characters, about 119 bits). */
export function generatePassword(): string {
  return randomBase62(20);
}
