// streamExecutionEvents: the execution detail each time a state changes.
import type { Db } from '@svc/db';
import type { Engine } from '@svc/engine';
import type { OperationHandlers } from '@svc/http';
import type { AuthPrincipal } from '../identity/principal.js';
import { runEventStream } from '../live/event-stream.js';
import type { LiveHub } from '../live/hub.js';
import type { LiveSettings } from '../live/settings.js';
import { SseWriter } from '../live/sse.js';
import { requireExecution } from './logs.js';

export interface EventRouteDeps {
  db: Db;
  hub: LiveHub;
  live: LiveSettings;
  engine: Engine;
}

export function eventHandlers(deps: EventRouteDeps) {
  return {
    async streamExecutionEvents({ params, req, res, log }) {
      const id = params.executionId;
      await requireExecution(deps.db, id);
      const lastId = req.headers['last-event-id'];
      const sse = new SseWriter(res, { keepAliveMs: deps.live.keepAliveMs, signal: deps.hub.signal });
      sse.open();
      await runEventStream({
        hub: deps.hub,
        engine: deps.engine,
        sse,
        executionId: id,
        ...(typeof lastId === 'string' && lastId.trim() ? { lastId: lastId.trim() } : {}),
        pollMs: deps.live.pollMs,
        log,
      });
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
