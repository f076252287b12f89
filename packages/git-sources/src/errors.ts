// Named failures of git sources; the gateway maps each to its status, the
// sync worker records each on the sync run.

/** A git command failed (or timed out). `message` is redacted: it never holds a credential. */
export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  constructor(
    /** The git subcommand, e.g. `fetch`. */
    readonly command: string,
    /** Exit code; null when killed (timeout). */
    readonly exitCode: number | null,
    message: string,
  ) {
    super(message);
  }
}

export class GitSourceNotFoundError extends Error {
  override readonly name = 'GitSourceNotFoundError';
  constructor(readonly sourceId: string) {
    super(`no git source ${sourceId}`);
  }
}

/** Create or update refused for a state reason (a name or a mapped namespace taken). */
export class GitSourceConflictError extends Error {
  override readonly name = 'GitSourceConflictError';
}

export interface GitFieldProblem {
  field: string;
  message: string;
}

/** Settings of a git source that cannot work: 422 with one entry per field. */
export class GitSourceInvalidError extends Error {
  override readonly name = 'GitSourceInvalidError';
  constructor(readonly details: GitFieldProblem[]) {
    super(details.map((d) => `${d.field}: ${d.message}`).join('; '));
  }
}

/** pushNamespaceBranch on a namespace no git source maps: 404. */
export class NamespaceNotMappedError extends Error {
  override readonly name = 'NamespaceNotMappedError';
  constructor(readonly namespace: string) {
    super(`namespace ${namespace} is not mapped from a git source`);
  }
}

/** A credential the source names could not be read (missing secret, master key). The message names the key, never a value. */
export class GitCredentialError extends Error {
  override readonly name = 'GitCredentialError';
}
