/** One entry of a `validation_failed` error: the field at fault and what is wrong with it. */
export interface ErrorDetail {
  /** Query or path parameter name, `body`, or a readable body path such as `changes[3].path`. */
  field: string;
  message: string;
}

export interface HttpErrorOptions {
  /** Listed in the envelope's `details`; omitted from the envelope when absent. */
  details?: ErrorDetail[];
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * An error that maps to one HTTP response with the envelope
 * `{error: {code, message, details?}}`. Only `errorHandler` turns it into a
 * response; routes and services throw it.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;

  constructor(status: number, code: string, message: string, opts: HttpErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    if (opts.details !== undefined) this.details = opts.details;
    if (opts.headers !== undefined) this.headers = opts.headers;
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Not found', code = 'not_found') {
    super(404, code, message);
    this.name = 'NotFoundError';
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = 'A valid credential is required') {
    super(401, 'unauthorized', message);
    this.name = 'UnauthorizedError';
  }
}

/** 403; `code` is `forbidden`, `csrf_failed` or `password_change_required`. */
export class ForbiddenError extends HttpError {
  constructor(message = 'Your role does not allow this operation', code = 'forbidden') {
    super(403, code, message);
    this.name = 'ForbiddenError';
  }
}

export class ConflictError extends HttpError {
  constructor(code: string, message: string) {
    super(409, code, message);
    this.name = 'ConflictError';
  }
}

export class ValidationFailedError extends HttpError {
  declare readonly details: ErrorDetail[];
  constructor(details: ErrorDetail[], message = 'The request does not match the schema') {
    super(422, 'validation_failed', message, { details });
    this.name = 'ValidationFailedError';
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message = 'The Content-Type must be application/json') {
    super(415, 'unsupported_media_type', message);
    this.name = 'UnsupportedMediaTypeError';
  }
}

export class BodyTooLargeError extends HttpError {
  readonly limitBytes?: number;
  constructor(limitBytes?: number) {
    super(413, 'body_too_large', limitBytes === undefined ? 'The request body is too large' : `The request body is larger than ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
    if (limitBytes !== undefined) this.limitBytes = limitBytes;
  }
}

export class NotImplementedError extends HttpError {
  readonly operationId: string;
  constructor(operationId: string) {
    super(501, 'not_implemented', `The operation ${operationId} is not implemented yet`);
    this.name = 'NotImplementedError';
    this.operationId = operationId;
  }
}

export class RateLimitedError extends HttpError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, code = 'rate_limited', message = 'Too many requests; retry later') {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, code, message, { headers: { 'Retry-After': String(seconds) } });
    this.name = 'RateLimitedError';
    this.retryAfterSeconds = seconds;
  }
}

export const notFound = (message?: string, code = 'not_found') => new NotFoundError(message, code);
export const unauthorized = (message?: string) => new UnauthorizedError(message);
export const forbidden = (message?: string, code?: string) => new ForbiddenError(message, code);
export const conflict = (code: string, message: string) => new ConflictError(code, message);
export const validationFailed = (details: ErrorDetail[]) => new ValidationFailedError(details);
export const unsupportedMediaType = (message?: string) => new UnsupportedMediaTypeError(message);
export const bodyTooLarge = (limitBytes?: number) => new BodyTooLargeError(limitBytes);
export const notImplemented = (operationId: string) => new NotImplementedError(operationId);
/** 429 with `Retry-After`; `code` is `rate_limited` (logins) or `rate_limit_exceeded` (organization keys). */
export const rateLimited = (retryAfterSeconds: number, code = 'rate_limited') => new RateLimitedError(retryAfterSeconds, code);

/** The envelope body of an error response. */
export function errorEnvelope(err: HttpError): { error: { code: string; message: string; details?: ErrorDetail[] } } {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details !== undefined && err.details.length > 0 ? { details: err.details } : {}),
    },
  };
}
