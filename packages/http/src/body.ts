import express, { type Request, type RequestHandler, type Response } from 'express';
import { jsonNestsDeeper, MAX_JSON_DEPTH } from '@svc/config';
import { HttpError, bodyTooLarge, unsupportedMediaType, validationFailed } from './errors.js';

/** Largest JSON body by default: 10 MiB (docs/behaviour/limits.md). */
export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

export interface BodyOptions {
  /** Largest body in bytes (or a string such as `'1mb'`). Default `DEFAULT_BODY_LIMIT` (10 MiB). */
  limit?: number | string;
}

/** True when the request carries a body (chunked, or a non-zero Content-Length). */
export function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > 0;
}

/** `application/json` or any `application/*+json`, with at most a UTF-8 charset. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...params] = header.split(';').map((s) => s.trim().toLowerCase());
  if (!type || !/^application\/([a-z0-9.+-]+\+)?json$/.test(type)) return false;
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/** body-parser errors carry `type`; this maps them to our envelope codes. */
function mapBodyParserError(err: unknown, limitBytes: number | undefined): Error {
  const type = (err as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.too.large':
      return bodyTooLarge(limitBytes);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return unsupportedMediaType('Unsupported Content-Encoding or charset');
    case 'request.aborted':
    case 'request.size.invalid':
      return new HttpError(400, 'bad_request', 'The request body was incomplete', { cause: err });
    default:
      // body-parser's own errors are Errors; anything else is wrapped (the error handler answers 500 for either).
      return err instanceof Error ? err : new Error('reading the request body failed', { cause: err });
  }
}

/**
 * Reads the raw body into a Buffer (undefined when there is none) with a size
 * limit. Uses body-parser, which drains an oversized body before answering so
 * clients get the 413 instead of a reset connection.
 */
export function createRawBodyReader(opts: BodyOptions = {}): (req: Request, res: Response) => Promise<Buffer | undefined> {
  const limit = opts.limit ?? DEFAULT_BODY_LIMIT;
  const limitBytes = typeof limit === 'number' ? limit : undefined;
  const raw = express.raw({ type: () => true, limit });
  return (req, res) =>
    new Promise((resolve, reject) => {
      if (!hasBody(req)) {
        resolve(undefined);
        return;
      }
      raw(req, res, (err?: unknown) => {
        if (err) {
          reject(mapBodyParserError(err, limitBytes));
          return;
        }
        const body: unknown = req.body;
        resolve(Buffer.isBuffer(body) && body.length > 0 ? body : undefined);
      });
    });
}

/**
 * Parses a UTF-8 JSON body; a body that is not JSON, or nests arrays and
 * objects deeper than MAX_JSON_DEPTH (measured before parsing), is 422 on
 * field `body`.
 */
export function parseJsonBody(raw: Buffer | undefined): unknown {
  if (raw === undefined) return undefined;
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (jsonNestsDeeper(text)) throw validationFailed([{ field: 'body', message: `nests deeper than ${MAX_JSON_DEPTH} levels` }]);
  try {
    return JSON.parse(text);
  } catch {
    throw validationFailed([{ field: 'body', message: 'invalid JSON' }]);
  }
}

/** 415 unless a present body is declared JSON. Checked before reading a byte. */
export function assertJsonContentType(req: Request): void {
  if (hasBody(req) && !isJsonContentType(req.headers['content-type'])) throw unsupportedMediaType();
}

/**
 * Middleware for a JSON body: 415 `unsupported_media_type` when a body is
 * present with another Content-Type, 413 `body_too_large` past the limit, 422
 * `validation_failed` (field `body`, `invalid JSON`) when it does not parse.
 * Sets `req.body` (undefined without a body). Mount it after the role check.
 */
export function jsonBody(opts: BodyOptions = {}): RequestHandler {
  const read = createRawBodyReader(opts);
  return async (req, res, next) => {
    try {
      assertJsonContentType(req);
      req.body = parseJsonBody(await read(req, res));
      next();
    } catch (err) {
      next(err);
    }
  };
}
