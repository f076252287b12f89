// Run tokens: the bearer credential of one task run's runner. Signed with a
// key all instances share (kept in `settings`, created by the first instance
// that needs it), so a forged or foreign token is rejected without a database
// lookup. Format: `svcr.<taskRunId>.<expiresAtSeconds>.<base64url HMAC-SHA256>`.
import crypto from 'node:crypto';
import type pg from 'pg';
import { compareAndSetSetting, readSettingValue, type Queryable } from '@svc/db';

const SETTING = 'run_token_key';

/** The run token key all instances share (created by the first that needs it). */
export async function loadRunTokenKey(pool: Queryable): Promise<Buffer> {
  await compareAndSetSetting(pool, SETTING, null, crypto.randomBytes(32).toString('base64'));
  return Buffer.from((await readSettingValue(pool, SETTING))!, 'base64');
}

const mac = (key: Buffer, body: string) => crypto.createHmac('sha256', key).update(body).digest('base64url');

export function signRunToken(key: Buffer, taskRunId: string, expiresAt: Date): string {
  const body = `svcr.${taskRunId}.${Math.floor(expiresAt.getTime() / 1000)}`;
  return `${body}.${mac(key, body)}`;
}

/** The task run a token is for, or null when it is malformed, forged, expired or for another task run. */
export function verifyRunToken(key: Buffer, token: string, taskRunId: string, now: Date): boolean {
  const parts = token.split('.');
  if (parts.length !== 4 || parts[0] !== 'svcr' || parts[1] !== taskRunId) return false;
  const exp = Number(parts[2]);
  if (!Number.isSafeInteger(exp) || exp * 1000 <= now.getTime()) return false;
  const expected = Buffer.from(mac(key, parts.slice(0, 3).join('.')));
  const got = Buffer.from(parts[3]);
  return expected.length === got.length && crypto.timingSafeEqual(expected, got);
}

/** The run tokens of one Engine: its key loaded once (again after a failed load). */
export class RunTokens {
  private key?: Promise<Buffer>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => Date,
  ) {}

  private load(): Promise<Buffer> {
    this.key ??= loadRunTokenKey(this.pool).catch((err) => {
      this.key = undefined;
      throw err;
    });
    return this.key;
  }

  /** A run token for `taskRunId`, valid until `expiresAt`. */
  async sign(taskRunId: string, expiresAt: Date): Promise<string> {
    return signRunToken(await this.load(), taskRunId, expiresAt);
  }

  /** Whether `token` is a valid run token of `taskRunId` now. */
  async verify(token: string, taskRunId: string): Promise<boolean> {
    return verifyRunToken(await this.load(), token, taskRunId, this.now());
  }
}
