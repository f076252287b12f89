// Named failures of namespace operations; the gateway maps each to its status.

export class NamespaceNotFoundError extends Error {
  override readonly name = 'NamespaceNotFoundError';
  constructor(readonly namespace: string) {
    super(`no namespace ${namespace}`);
  }
}

export class NamespaceExistsError extends Error {
  override readonly name = 'NamespaceExistsError';
  constructor(readonly namespace: string) {
    super(`namespace ${namespace} exists`);
  }
}

/** Delete refused: children, or executions still running. The message says what blocks it. */
export class NamespaceBusyError extends Error {
  override readonly name = 'NamespaceBusyError';
}

/** A write to a namespace mapped from a git source: 409 namespace_read_only. Only the git sync writes it. */
export class NamespaceReadOnlyError extends Error {
  override readonly name = 'NamespaceReadOnlyError';
  constructor(
    readonly namespace: string,
    readonly sourceName: string,
  ) {
    super(`namespace ${namespace} is mapped from the git source ${sourceName}: change it in the repository (or push a branch with pushNamespaceBranch)`);
  }
}

export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError';
  constructor(
    readonly baseVersion: number,
    readonly headVersion: number,
  ) {
    super(`base_version ${baseVersion} is not the head version ${headVersion}: reload and apply your changes on version ${headVersion}`);
  }
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** Changes that cannot apply (bad path, missing file, content rules): 422 with one entry per field. */
export class ChangeError extends Error {
  override readonly name = 'ChangeError';
  constructor(readonly details: FieldProblem[]) {
    super(details.map((d) => `${d.field}: ${d.message}`).join('; '));
  }
}

/** A saved `*.flow.yaml` (or namespace.yaml) is invalid: 422 flow_invalid, details `<path>:<json-pointer>`. */
export class FlowFilesInvalidError extends Error {
  override readonly name = 'FlowFilesInvalidError';
  constructor(readonly details: FieldProblem[]) {
    super(`invalid flow files: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}`);
  }
}

/** A file or the whole snapshot exceeds SVC_MAX_FILE_BYTES / SVC_MAX_BUNDLE_BYTES: 413 too_large. */
export class TooLargeError extends Error {
  override readonly name = 'TooLargeError';
}

export class FileNotFoundError extends Error {
  override readonly name = 'FileNotFoundError';
  constructor(
    readonly path: string,
    readonly version: number,
  ) {
    super(`no file ${path} in version ${version}`);
  }
}

export class VersionNotFoundError extends Error {
  override readonly name = 'VersionNotFoundError';
  constructor(readonly version: number) {
    super(`no version ${version}`);
  }
}
