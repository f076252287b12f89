// Credentials are built by the identity issue (sessions, API tokens). Until
// then no credential is valid, so every protected operation answers 401 with
// the envelope; public operations and the health routes work.
import type { Request } from 'express';
import { unauthorized } from '@svc/http';

export async function authenticate(_deps: unknown, _req: Request): Promise<never> {
  throw unauthorized();
}
