import type { Request, RequestHandler, Response } from 'express';
import type { HttpLogger } from './logger.js';

/** Route label of an unknown `/api/...` path (spec: metrics "route"). */
export const API_NOT_FOUND_ROUTE = '/api/*';
/** Route label of a request no route matched. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route pattern of a request, never its raw URL: raw paths carry IDs (high
 * cardinality for metrics) and `/hooks/{key}` carries a secret key.
 * Routes mounted by `mountOperations` record the catalog path (`/api/v1/executions/{executionId}`).
 */
export function routeOf(req: Request, res: Response): string {
  const recorded: unknown = res.locals.route;
  if (typeof recorded === 'string') return recorded;
  const route = req.route as { path?: unknown } | undefined;
  if (route && typeof route.path === 'string') return req.baseUrl + route.path;
  return UNMATCHED_ROUTE;
}

/** One log line per request when the response ends (or the client goes away). */
export function requestLogger(log: HttpLogger, opts: { clock?: () => number } = {}): RequestHandler {
  const clock = opts.clock ?? (() => performance.now());
  return (req, res, next) => {
    const start = clock();
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      log.info('http request', {
        request_id: res.locals.requestId,
        method: req.method,
        route: routeOf(req, res),
        // A client that disconnects before any status was written: the spec counts it as 200.
        status: res.statusCode,
        duration_ms: Math.round((clock() - start) * 1000) / 1000,
        // The execution or task run the path names (mountOperations records it).
        ...(res.locals.logFields as Record<string, string> | undefined),
        ...(res.writableFinished ? {} : { aborted: true }),
      });
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}
