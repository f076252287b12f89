// The typed HTTP client of the API: openapi-fetch over the generated `paths`,
// so a call's path, parameters, body and answer are checked against the
// OpenAPI document at compile time. Imported as `@svc/api-spec/client`, apart
// from the package root, so the server never loads it.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './openapi-types.generated.js';

export type { ClientOptions } from 'openapi-fetch';
export type { components, operations, paths } from './openapi-types.generated.js';

/** An openapi-fetch client of the svc API: `GET('/api/v1/executions/{executionId}', { params: { path: { executionId } } })`. */
export type ApiClient = Client<paths>;

/**
 * A client of one svc server.
 * @param options openapi-fetch's: `baseUrl` is the server's origin (default
 *   `''`, the page's own; the paths carry `/api/v1`), `headers` for example
 *   `{ authorization: 'Bearer svc_...' }`, `fetch` to replace globalThis.fetch.
 */
export function createApiClient(options: ClientOptions = {}): ApiClient {
  return createClient<paths>(options);
}
