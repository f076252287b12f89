// Tunables of the event streams. Only the keep-alive interval is configured
// (SVC_SSE_KEEPALIVE_MS in the configuration catalogue, validated at start
// with every other variable: tests and proxies with short idle timeouts
// shorten it); the rest are fixed defaults chosen with bench/logs.bench.mjs.
import type { Config } from '@svc/config';

export interface LiveSettings {
  /** Quiet time after which a stream sends `: keep-alive`. Default 15000 ms (SVC_SSE_KEEPALIVE_MS). */
  keepAliveMs: number;
  /** Backstop poll of every stream, in case a notification was lost. Default 1000 ms. */
  pollMs: number;
  /** Lines a log stream reads per round. Default 250. */
  readLines: number;
  /** Connections of the streams' read pool. Default 4. */
  queryPoolSize: number;
}

export const DEFAULT_LIVE_SETTINGS: LiveSettings = { keepAliveMs: 15_000, pollMs: 1_000, readLines: 250, queryPoolSize: 4 };

/** The live settings of a loaded configuration. */
export function liveSettingsFromConfig(config: Pick<Config, 'sseKeepAliveMs'>): LiveSettings {
  return { ...DEFAULT_LIVE_SETTINGS, keepAliveMs: config.sseKeepAliveMs };
}
