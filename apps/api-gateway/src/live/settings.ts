// Tunables of the event streams. Only the keep-alive interval is read from
// the environment (tests and proxies with short idle timeouts shorten it);
// the rest are fixed defaults chosen with bench/logs.bench.mjs.

export interface LiveSettings {
  /** Quiet time after which a stream sends `: keep-alive`. Default 15000 ms (SVC_SSE_KEEPALIVE_MS). */
  keepAliveMs: number;
  /** Backstop poll of every stream, in case a notification was lost. Default 1000 ms. */
  pollMs: number;
  /** Lines a log stream reads per task run per round. Default 100. */
  perRun: number;
  /** Connections of the streams' read pool. Default 4. */
  queryPoolSize: number;
}

export const DEFAULT_LIVE_SETTINGS: LiveSettings = { keepAliveMs: 15_000, pollMs: 1_000, perRun: 100, queryPoolSize: 4 };

export class LiveSettingsError extends Error {
  constructor(readonly variable: string, readonly value: string) {
    super(`${variable} must be a whole number of milliseconds from 10 to 3600000, got ${JSON.stringify(value)}`);
    this.name = 'LiveSettingsError';
  }
}

/** Reads SVC_SSE_KEEPALIVE_MS; throws `LiveSettingsError` on a bad value. */
export function liveSettingsFromEnv(env: Record<string, string | undefined>): LiveSettings {
  const raw = env.SVC_SSE_KEEPALIVE_MS?.trim();
  if (raw === undefined || raw === '') return { ...DEFAULT_LIVE_SETTINGS };
  const ms = Number(raw);
  if (!/^\d+$/.test(raw) || ms < 10 || ms > 3_600_000) throw new LiveSettingsError('SVC_SSE_KEEPALIVE_MS', raw);
  return { ...DEFAULT_LIVE_SETTINGS, keepAliveMs: ms };
}
