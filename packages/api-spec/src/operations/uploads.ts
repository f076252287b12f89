import { Type } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { Binary } from '../schemas/helpers.js';
import { Upload } from '../schemas/entities.js';
import { NamespaceName, Params } from '../schemas/requests.js';
import { OPERATOR, created, err } from './shared.js';

export const uploadOperations: Operation[] = [
  {
    operationId: 'createUpload',
    method: 'post',
    path: '/api/v1/namespaces/{namespace}/uploads',
    tag: 'namespaces',
    summary: 'Upload a file for a flow input of type file (raw bytes, streamed)',
    description:
      'Extension (docs/using/files.md). The body is streamed to the object store, its size and sha256 computed on the way. With an `x-svc-sha256` header (64 hex digits), a body with another sha256 is refused (422 on that field) and nothing is kept; past SVC_MAX_INPUT_FILE_BYTES, 413 `too_large` and nothing is kept. The answer names the upload: trigger a flow of this namespace with its id as the value of a `file` input. An upload no execution used expires after 24 hours.',
    auth: OPERATOR,
    request: {
      params: Params({ namespace: NamespaceName }),
      query: Type.Object({ name: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/\\\\\\u0000]+$', description: 'The file name (no directory)' }) }),
      body: Binary(),
      bodyContentType: 'application/octet-stream',
    },
    responses: {
      ...created(Upload, 'The upload'),
      ...err(413, '`too_large`: larger than SVC_MAX_INPUT_FILE_BYTES'),
      ...err(422, 'The body does not have the sha256 of `x-svc-sha256`, or a bad name'),
    },
  },
];
