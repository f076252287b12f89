// The CLI's adapter over the one typed client of the API (@svc/api-spec/client):
// the bearer token and the CLI's user agent on every request, and a server
// that cannot be reached said as a CliError. Errors (ApiError with the
// envelope's code, message, request ID and details), paging and event streams
// are the shared client's.
import { ApiError, createApiClient, type SvcApi } from '@svc/api-spec/client';
import { CliError } from '../io.js';

export { ApiError };
export type { EventSourceMessage, StreamHandlers } from '@svc/api-spec/client';

/** The API as the CLI calls it: `api.get('/api/v1/executions/{executionId}', { params: { path: { executionId } } })`. */
export type ApiClient = SvcApi & { readonly baseUrl: string };

/**
 * A client of the server at `baseUrl`.
 * @param token the API token sent as `Authorization: Bearer`; none for the anonymous calls of `svc login`.
 * @param userAgent default `svc-cli`.
 */
export function apiClient(baseUrl: string, token: string | undefined, userAgent = 'svc-cli'): ApiClient {
  const api = createApiClient({
    baseUrl,
    headers: { 'user-agent': userAgent, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    fetch: async (request) => {
      try {
        return await fetch(request);
      } catch (err) {
        if ((err as Error).name === 'AbortError') throw err;
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new CliError(`cannot reach ${baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
      }
    },
  });
  return Object.assign(api, { baseUrl });
}

/** A lost event stream, said as the CLI says failures. */
export const lostStream = (path: string, cause: unknown): Error => (cause instanceof CliError ? cause : new CliError(`lost the event stream ${path}: ${(cause as Error).message}`));
