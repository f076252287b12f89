import type { TSchema } from '@sinclair/typebox';
import type { OperationAuth, OperationResponse } from '../operation.js';

export const PUBLIC: OperationAuth = { kind: 'public' };
export const VIEWER: OperationAuth = { kind: 'role', minRole: 'viewer' };
export const OPERATOR: OperationAuth = { kind: 'role', minRole: 'operator' };
export const EDITOR: OperationAuth = { kind: 'role', minRole: 'editor' };
export const ADMIN: OperationAuth = { kind: 'role', minRole: 'admin' };
export const RUN_TOKEN: OperationAuth = { kind: 'run_token' };

export const ok = (schema: TSchema, description = 'OK'): Record<number, OperationResponse> => ({ 200: { description, schema } });
export const created = (schema: TSchema, description = 'Created'): Record<number, OperationResponse> => ({ 201: { description, schema } });
export const accepted = (schema: TSchema, description = 'Accepted'): Record<number, OperationResponse> => ({ 202: { description, schema } });
export const noContent = (description = 'Done'): Record<number, OperationResponse> => ({ 204: { description } });
/** An error status worth naming on this operation (body: the error envelope). */
export const err = (status: number, description: string): Record<number, OperationResponse> => ({ [status]: { description } });

export const EVENT_STREAM = 'text/event-stream';
export const STREAM_HEADERS = {
  'X-Accel-Buffering': 'Always `no`',
  'Cache-Control': 'Always `no-cache`',
};
