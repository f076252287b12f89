export { createLogger, type CreateLoggerOptions, createTestLogger, type CreateTestLoggerOptions, type LogFormat, type Logger, type LogLevel, type TestLogger } from './logger.js';
export { type SerializedError, serializeError } from './serialize.js';
export { activeTraceId, activeTraceparent, continueTrace, outsideLogFields, setTraceHooks, startTrace, tracingOn, type TraceHooks, withLogFields } from './trace.js';
