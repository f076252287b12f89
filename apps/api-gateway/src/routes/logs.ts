// Execution logs: a page (getExecutionLogs), the whole log as text
// (downloadExecutionLogs) and the live stream (streamExecutionLogs).
import type { Response } from 'express';
import type { Db } from '@svc/db';
import { notFound, validationFailed, type Cursor, type OperationHandlers } from '@svc/http';
import type { AuthPrincipal } from '../identity/principal.js';
import type { LiveHub } from '../live/hub.js';
import { BadPositionError, decodePosition, downloadLine, rfc3339Formatter, toLogLine, type Position } from '../live/lines.js';
import { runLogStream } from '../live/log-stream.js';
import type { LiveSettings } from '../live/settings.js';
import { SseWriter } from '../live/sse.js';
import { executionHead, logPage, type LogKey } from '@svc/engine/read-models';

export interface LogRouteDeps {
  db: Db;
  hub: LiveHub;
  live: LiveSettings;
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown };
}

/** Lines per database read of the download. */
const DOWNLOAD_BATCH = 5000;

export async function requireExecution(db: Db, id: string) {
  const head = await executionHead(db.pool, id);
  if (!head) throw notFound(`no execution ${id}`, 'execution_not_found');
  return head;
}

/** The page cursor's sort key (its shape and ranges are checked before the handler runs: LogsCursor). */
function keyOf(cursor: Cursor<'getExecutionLogs'> | undefined): LogKey | undefined {
  if (!cursor) return undefined;
  const { ts, t, n } = cursor;
  return { ts, taskRunId: t, n };
}

/** Writes and waits for the socket to drain when its buffer is full; false once the client is gone. */
export async function writeDrained(res: Response, chunk: string | Buffer): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(chunk)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
  return !res.destroyed;
}

/** A file name safe inside a quoted Content-Disposition parameter. */
export const safeFileName = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');

export function logHandlers(deps: LogRouteDeps) {
  const { db } = deps;
  return {
    async getExecutionLogs({ params, query, cursor, encodeCursor, res }) {
      const id = params.executionId;
      const q = query;
      const attempt = q.attempt;
      const after = keyOf(cursor);
      await requireExecution(db, id);
      const rows = await logPage(db.pool, { executionId: id, after, limit: q.limit + 1, task: q.task, attempt });
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      const fmt = rfc3339Formatter();
      const body = JSON.stringify({
        items: page.map((r) => toLogLine(r, fmt)),
        ...(rows.length > q.limit && last ? { next_cursor: encodeCursor({ ts: last.ts, t: last.task_run_id, n: last.n }) } : {}),
      });
      // Written here rather than returned: a page is up to a few MB, and express would hash it for an ETag first.
      res.status(200);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(body));
      res.end(body);
    },

    async downloadExecutionLogs({ params, query, res }) {
      const id = params.executionId;
      const { task, attempt } = query;
      const head = await requireExecution(db, id);
      const name = safeFileName(`${head.namespace}-${head.flow_id ?? 'file'}-${head.id}.log`);
      res.status(200);
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
      res.setHeader('Cache-Control', 'no-cache');
      // Keyset batches: one short query per batch, so a slow client never holds a connection.
      const fmt = rfc3339Formatter();
      let after: LogKey | undefined;
      for (;;) {
        const rows = await logPage(db.pool, { executionId: id, after, limit: DOWNLOAD_BATCH, task, attempt });
        if (rows.length === 0) break;
        let text = '';
        for (const r of rows) text += downloadLine(r, fmt);
        if (!(await writeDrained(res, text))) return;
        const last = rows[rows.length - 1];
        after = { ts: last.ts, taskRunId: last.task_run_id, n: last.n };
        if (rows.length < DOWNLOAD_BATCH) break;
      }
      res.end();
    },

    async streamExecutionLogs({ params, query, req, res, log }) {
      const id = params.executionId;
      const task = query.task;
      await requireExecution(db, id);
      let start: Position = '0';
      const lastId = req.headers['last-event-id'];
      if (typeof lastId === 'string' && lastId.trim() !== '') {
        try {
          start = decodePosition(lastId.trim());
        } catch (err) {
          if (err instanceof BadPositionError) throw validationFailed([{ field: 'Last-Event-ID', message: err.message }]);
          throw err;
        }
      }
      const sse = new SseWriter(res, { keepAliveMs: deps.live.keepAliveMs, signal: deps.hub.signal });
      sse.open();
      // The handler returns once the stream ended (end event, client gone, or the gateway stopping).
      await runLogStream({ hub: deps.hub, sse, executionId: id, task, start, pollMs: deps.live.pollMs, readLines: deps.live.readLines, log });
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
