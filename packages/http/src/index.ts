export {
  HttpError,
  NotFoundError,
  UnauthorizedError,
  ForbiddenError,
  ConflictError,
  ValidationFailedError,
  UnsupportedMediaTypeError,
  BodyTooLargeError,
  NotImplementedError,
  RateLimitedError,
  notFound,
  unauthorized,
  forbidden,
  conflict,
  validationFailed,
  unsupportedMediaType,
  bodyTooLarge,
  notImplemented,
  rateLimited,
  errorEnvelope,
  type ErrorDetail,
  type HttpErrorOptions,
} from './errors.js';
export { withFields, type HttpLogger, type LogFields } from './logger.js';
export { requestId, newRequestId, REQUEST_ID_HEADER, REQUEST_ID_PATTERN } from './request-id.js';
export { requestLogger, routeOf, API_NOT_FOUND_ROUTE, UNMATCHED_ROUTE } from './request-logger.js';
export { jsonBody, hasBody, isJsonContentType, assertJsonContentType, createRawBodyReader, parseJsonBody, DEFAULT_BODY_LIMIT, type BodyOptions } from './body.js';
export {
  compileOperation,
  createRequestValidator,
  toDetails,
  messageFor,
  fieldName,
  type CompiledOperation,
  type PartResult,
  type PartValidator,
  type RequestValidator,
  type ValidatedRequest,
} from './validation.js';
export { encodeCursor, decodeCursor, tryDecodeCursor, isCursorTime, isInt8Text, type Cursor } from './cursor.js';
export { errorHandler, apiNotFound, unmatched, toHttpError } from './error-handler.js';
export {
  mountOperations,
  reply,
  toExpressPath,
  type AllOperationHandlers,
  type BaseHandlerContext,
  type Handler,
  type HandlerContext,
  type HandlerResult,
  type MountOptions,
  type OperationHandlers,
  type Principal,
  type Reply,
  type UntypedHandlers,
} from './mount.js';
export { ROLES, roleAtLeast, isRole, type Role } from '@svc/api-spec';
export { checkRole, checkRoleWithBody, namespaceInBody, type NamespaceRoles, type RoleCheckParts } from './roles.js';
