// The error of the organization functions, with a code the CLI and the
// gateway turn into their messages; a file of its own so that the files of
// organizations, their senders and their namespaces all import it downwards.
export class OrganizationError extends Error {
  override readonly name = 'OrganizationError';
  constructor(
    readonly code: 'invalid_name' | 'exists' | 'not_found' | 'invalid_sender' | 'invalid_quota' | 'invalid_namespace',
    message: string,
  ) {
    super(message);
  }
}
