// The timeouts of every HTTP server of the apps (the gateway, the health
// servers). Node's default keep-alive timeout is 5 s; a proxy or load balancer
// in front keeps idle upstream connections longer (60 s for AWS ALB, nginx,
// most ingresses) and reuses one just as the server closes it, which the
// client sees as a reset or a 502. The server's timeout must be the longer
// one, so that the proxy always closes first.
import type http from 'node:http';
import type { Config } from '@svc/config';

export interface HttpTimeouts {
  /** Idle time after which a keep-alive connection is closed (`SVC_HTTP_KEEPALIVE_TIMEOUT`, default 75 s). */
  keepAliveTimeoutMs: number;
  /** Time allowed for a request's headers (`SVC_HTTP_HEADERS_TIMEOUT`, default keep-alive + 1 s). */
  headersTimeoutMs: number;
}

export function httpTimeouts(config: Pick<Config, 'httpKeepAliveTimeoutMs' | 'httpHeadersTimeoutMs'>): HttpTimeouts {
  return { keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs, headersTimeoutMs: config.httpHeadersTimeoutMs };
}

/** Sets the timeouts on `server`; call before it serves its first request. */
export function applyHttpTimeouts(server: http.Server, t: HttpTimeouts): void {
  server.keepAliveTimeout = t.keepAliveTimeoutMs;
  server.headersTimeout = t.headersTimeoutMs;
  // requestTimeout bounds receiving a request (headers and body), not sending
  // the response, so event streams are not cut by it; Node's 300 s stays, only
  // raised when the headers alone may take longer. server.timeout (socket
  // inactivity) stays 0: a quiet event stream sends its own keep-alive
  // comments (SVC_SSE_KEEPALIVE_MS).
  if (server.requestTimeout > 0 && server.requestTimeout < t.headersTimeoutMs) server.requestTimeout = t.headersTimeoutMs;
}
