/** One variable at fault, as reported by {@link ConfigError}. */
export interface ConfigProblem {
  /** The environment variable, e.g. `SVC_PORT`. */
  variable: string;
  /** What is wrong, phrased so that the operator knows what to write instead. */
  message: string;
  /**
   * The offending value as it may be shown to an operator: absent for secrets
   * (`SVC_MASTER_KEYS`, `SVC_ADMIN_PASSWORD`, `SVC_TOKEN`, `SVC_K8S_TOKEN`), and
   * with any password inside a URL replaced by `***`.
   */
  got?: string;
}

/**
 * The environment holds one or more invalid values. Every problem is collected
 * before this is thrown, so an operator fixes the whole configuration in one go
 * instead of one variable per restart.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: ConfigProblem[];

  constructor(problems: ConfigProblem[]) {
    super(formatProblems(problems));
    this.problems = problems;
  }
}

/** `invalid configuration:` followed by one indented line per problem. */
export function formatProblems(problems: readonly ConfigProblem[]): string {
  const lines = problems.map((p) => `  ${p.variable}: ${p.message}${p.got === undefined ? '' : ` (got ${JSON.stringify(p.got)})`}`);
  return ['invalid configuration:', ...lines].join('\n');
}
