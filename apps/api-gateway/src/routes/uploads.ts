// File inputs (docs/using/files.md): createUpload streams the body to the
// object store (Uploads.create counts and hashes it on the way), and answers
// the upload's id, the value of a `file` input when the flow is triggered.
import type { Engine } from '@svc/engine';
import type { Db } from '@svc/db';
import { notFound, reply, type OperationHandlers } from '@svc/http';
import { namespaceExists } from '@svc/namespaces';
import type { Answer } from '@svc/api-spec';
import type { AuthPrincipal } from '../identity/principal.js';
import { streamedUpload } from './upload-body.js';

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
      const { body, sha256 } = streamedUpload(req, { name: query.name, limit, setting: 'SVC_MAX_INPUT_FILE_BYTES' });
      const u = await deps.engine.uploads.create(namespace, query.name, body, { maxBytes: limit, by: principal.userId, ...(sha256 !== undefined ? { sha256 } : {}) });
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
