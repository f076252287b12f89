import type { Response } from 'express';
import { stringifySetCookie } from 'cookie';

export const SESSION_COOKIE = 'svc_session';

/** The spec's flags: HttpOnly, SameSite=Lax, Path=/, Secure when SVC_PUBLIC_URL is https. */
export function setSessionCookie(res: Response, token: string, opts: { publicUrl: string; ttlMs: number }): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: opts.publicUrl.startsWith('https://'),
      maxAge: Math.floor(opts.ttlMs / 1000),
    }),
  );
}

export function clearSessionCookie(res: Response, opts: { publicUrl: string }): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', path: '/', secure: opts.publicUrl.startsWith('https://'), maxAge: 0, expires: new Date(0) }),
  );
}
