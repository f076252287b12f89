/** A template that cannot be parsed: a validation error at save time. */
export class TemplateSyntaxError extends Error {
  override readonly name = 'TemplateSyntaxError';

  constructor(
    message: string,
    /** The whole template source. */
    readonly source: string,
    /** 0-based offset (UTF-16 code units) in `source` of the fault. */
    readonly offset: number,
    /** Source of the faulty expression between the braces, trimmed, when it is known. */
    readonly expression?: string,
  ) {
    super(message);
  }
}

/** A path that does not resolve at dispatch: the task run fails with `template_error`. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
  readonly reason = 'template_error' as const;

  constructor(
    /** Source of the expression between the braces, trimmed. */
    readonly expression: string,
    /** What failed, without the expression, e.g. `task "extract" has no output "rows" (outputs: count)`. */
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`{{ ${expression} }}: ${detail}`, options);
  }
}

/** `secret('KEY')` with no value for the key: the task run fails with `secret_not_found`. */
export class SecretNotFoundError extends Error {
  override readonly name = 'SecretNotFoundError';
  readonly reason = 'secret_not_found' as const;

  constructor(
    readonly key: string,
    /** Source of the expression between the braces, trimmed. */
    readonly expression: string,
  ) {
    super(`{{ ${expression} }}: secret "${key}" not found`);
  }
}
