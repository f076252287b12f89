// File inputs (docs/using/files.md): createUpload streams the body to the
// object store (Uploads.create counts and hashes it on the way), and answers
// the upload's id, the value of a `file` input when the flow is triggered.
import { PassThrough } from 'node:stream';
import type { Engine } from '@svc/engine';
import type { Db } from '@svc/db';
import { HttpError, notFound, reply, validationFailed, type OperationHandlers } from '@svc/http';
import { namespaceExists } from '@svc/namespaces';
import type { Answer } from '@svc/api-spec';
import type { AuthPrincipal } from '../identity/principal.js';
import { SHA256_HEADER } from './runner.js';

export interface UploadRouteDeps {
  db: Db;
  engine: Engine;
  /** SVC_MAX_INPUT_FILE_BYTES. */
  maxInputFileBytes: number;
}

export function uploadHandlers(deps: UploadRouteDeps) {
  return {
    async createUpload({ params, query, req, principal }) {
      const { namespace } = params;
      if (!(await namespaceExists(deps.db.prisma, namespace))) throw notFound(`no namespace ${namespace}`);
      const limit = deps.maxInputFileBytes;
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit)
        throw new HttpError(413, 'too_large', `${query.name} is ${declared} bytes, over SVC_MAX_INPUT_FILE_BYTES (${limit} bytes)`);
      const sha = req.headers[SHA256_HEADER];
      if (sha !== undefined && (typeof sha !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha))) {
        throw validationFailed([{ field: SHA256_HEADER, message: 'must be 64 hexadecimal digits' }]);
      }
      // As runnerPutArtifact: a refusal mid-body destroys the PassThrough, not the request, which still carries the answer.
      const body = req.pipe(new PassThrough());
      req.once('error', (err) => body.destroy(err));
      req.once('close', () => {
        if (!req.complete) body.destroy(new Error('the upload was cut off before its end'));
      });
      const u = await deps.engine.uploads.create(namespace, query.name, body, { maxBytes: limit, by: principal.userId, ...(sha !== undefined ? { sha256: sha } : {}) });
      return reply(201, {
        id: u.id,
        namespace: u.namespace,
        name: u.name,
        size: Number(u.size),
        sha256: u.sha256,
        created_at: u.created_at.toISOString(),
        expires_at: u.expires_at.toISOString(),
      } satisfies Answer<'createUpload'>);
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
