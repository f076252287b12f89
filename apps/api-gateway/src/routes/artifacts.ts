// What task runs left behind: artifacts (listed, and streamed from the
// object store) and the custom metrics they reported through the outputs file.
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Db } from '@svc/db';
import { notFound, type OperationHandlers } from '@svc/http';
import { ObjectNotFoundError, type ObjectStore } from '@svc/storage';
import type { AuthPrincipal } from '../identity/principal.js';
import { artifactOf, artifactPage, metricPage, type ArtifactRow } from '@svc/engine/read-models';
import { requireExecution, safeFileName } from './logs.js';
import type { Answer, Schemas } from '@svc/api-spec';

export interface ArtifactRouteDeps {
  db: Db;
  storage: ObjectStore;
}

function artifactJson(a: ArtifactRow): Schemas['Artifact'] {
  return {
    id: a.id,
    name: a.name,
    size: Number(a.size),
    content_type: a.content_type,
    kind: a.kind,
    sha256: a.sha256,
    // A file input has no task run.
    ...(a.task_run_id !== null ? { task_run_id: a.task_run_id } : {}),
    ...(a.task_key !== null ? { task_key: a.task_key } : {}),
    created_at: a.created_at.toISOString(),
  };
}

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266 / 5987). */
function contentDisposition(name: string): string {
  const base = path.posix.basename(name) || 'artifact';
  return `attachment; filename="${safeFileName(base)}"; filename*=UTF-8''${encodeURIComponent(base)}`;
}

export function artifactHandlers(deps: ArtifactRouteDeps) {
  const { db } = deps;
  return {
    async listExecutionArtifacts({ params, query, cursor: c, encodeCursor }) {
      const id = params.executionId;
      const limit = query.limit;
      // Checked against the operation's cursor shape before the handler runs.
      const after = c && { createdAt: c.c, id: c.id };
      await requireExecution(db, id);
      const rows = await artifactPage(db.pool, id, limit + 1, after);
      const page = rows.slice(0, limit);
      const tail = page[page.length - 1];
      return {
        items: page.map(artifactJson),
        // Microseconds kept as stored (timestamptz(6)): a millisecond cursor could skip rows created in the same millisecond.
        ...(rows.length > limit && tail ? { next_cursor: encodeCursor({ c: tail.created_key, id: tail.id }) } : {}),
      } satisfies Answer<'listExecutionArtifacts'>;
    },

    async downloadArtifact({ params, res }) {
      const id = params.executionId;
      await requireExecution(db, id);
      const a = await artifactOf(db.pool, id, params.artifactId);
      if (!a) throw notFound(`no artifact ${params.artifactId} in execution ${id}`);
      let body: NodeJS.ReadableStream;
      try {
        body = await deps.storage.get(a.object_key);
      } catch (err) {
        if (err instanceof ObjectNotFoundError) throw notFound(`the content of artifact ${a.id} is gone from the object store`);
        throw err;
      }
      res.status(200);
      res.setHeader('Content-Type', a.content_type || 'application/octet-stream');
      res.setHeader('Content-Length', a.size);
      res.setHeader('Content-Disposition', contentDisposition(a.name));
      // The handler writes the response itself: it returns once the bytes were sent (pipeline applies back-pressure).
      await pipeline(body, res);
    },

    async listExecutionMetrics({ params, query, cursor, encodeCursor }) {
      const id = params.executionId;
      const limit = query.limit;
      const after = cursor?.id;
      await requireExecution(db, id);
      const rows = await metricPage(db.pool, id, limit + 1, after);
      const page = rows.slice(0, limit);
      const tail = page[page.length - 1];
      return {
        items: page.map((m) => ({ task_run_id: m.task_run_id, task_key: m.task_key, name: m.name, value: m.value, tags: m.tags, at: m.at.toISOString() })),
        ...(rows.length > limit && tail ? { next_cursor: encodeCursor({ id: tail.id }) } : {}),
      } satisfies Answer<'listExecutionMetrics'>;
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
