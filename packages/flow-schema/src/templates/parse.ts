import { assertNever } from '@svc/assert';
import { TEMPLATE_FUNCTIONS, TEMPLATE_ROOTS, type Expr, type ParsedTemplate, type Segment, type TemplateFunction, type TemplateRoot } from './ast.js';
import { TemplateSyntaxError } from './errors.js';
import { positionText } from './path-text.js';
import { checkRootPath, type PathMember } from './roots.js';
import { findClose, Scanner, tokenText, type Token } from './scanner.js';

/*
 * A hand-written single-pass recursive-descent parser. Text is copied up to
 * each `{{`; the expression is then read token by token up to the `}}` token,
 * so a `}}` inside a quoted string (`{{ '}}' }}`) does not end it. Nothing
 * backtracks, so parsing is linear in the length of the source.
 *
 * Grammar (inside the braces; whitespace between tokens is free):
 *   expr := STRING | NUMBER | true | false | null | call | path
 *   call := secret '(' STRING ')' | json '(' expr ')' | default '(' expr ',' expr ')'
 *   path := ROOT ( '.' NAME | '[' STRING ']' | '[' INDEX ']' )*
 */

/** Calls may nest (`default(json(...), ...)`); a bound keeps hostile input off the call stack. */
export const MAX_EXPRESSION_DEPTH = 16;

const ROOT_SET: ReadonlySet<string> = new Set(TEMPLATE_ROOTS);
const FUNCTION_SET: ReadonlySet<string> = new Set(TEMPLATE_FUNCTIONS);
const ROOT_LIST = TEMPLATE_ROOTS.join(', ');
const FUNCTION_LIST = TEMPLATE_FUNCTIONS.join(', ');

/** True when `source` holds a `{{`, i.e. rendering may change it. */
export function isTemplate(source: string): boolean {
  return source.includes('{{');
}

/**
 * Parses a template string: literal text with `{{ expr }}` segments.
 * @throws {TemplateSyntaxError} naming the expression and the offset of the fault.
 */
export function parseTemplate(source: string): ParsedTemplate {
  const first = source.indexOf('{{');
  if (first === -1) {
    return {
      source,
      segments: source === '' ? [] : [{ kind: 'text', text: source }],
      expressions: [],
      secretKeys: [],
      taskRefs: [],
      roots: [],
      refs: [],
    };
  }
  return new TemplateParser(source).parse(first);
}

/** The one expression of a template that holds nothing else but blank text (`"{{ inputs.list }}"`), if it is one. */
export function soleExpression(t: ParsedTemplate): Extract<Segment, { kind: 'expression' }> | undefined {
  const expressions = t.segments.filter((s) => s.kind === 'expression');
  if (expressions.length !== 1) return undefined;
  return t.segments.every((s) => s.kind === 'expression' || s.text.trim() === '') ? expressions[0] : undefined;
}

class TemplateParser {
  /** Offset of the `{{` of the expression being parsed. */
  private open = 0;
  private depth = 0;
  private readonly scanner: Scanner;
  private readonly taskRefKeys = new Set<string>();
  private readonly result: ParsedTemplate;

  constructor(private readonly source: string) {
    this.scanner = new Scanner(source, (message, offset) => this.fail(`${message} in ${this.display()}`, offset));
    this.result = { source, segments: [], expressions: [], secretKeys: [], taskRefs: [], roots: [], refs: [] };
  }

  parse(first: number): ParsedTemplate {
    const { source, result, scanner } = this;
    let textStart = 0;
    let open = first;
    while (open !== -1) {
      if (open > textStart) result.segments.push({ kind: 'text', text: source.slice(textStart, open) });
      this.open = open;
      scanner.reset(open + 2);
      if (scanner.peek().type === 'close') {
        throw this.fail(`empty expression {{ }} at ${positionText(source, open)}`, open);
      }
      const expr = this.parseExpr();
      const close = scanner.next();
      if (close.type === 'eof') throw this.unterminated();
      if (close.type !== 'close') {
        const since = this.slice(open + 2, close.start);
        throw this.fail(`unexpected ${tokenText(source, close)} after ${since} in ${this.display()}`, close.start);
      }
      const expression = source.slice(open + 2, close.start).trim();
      result.segments.push({ kind: 'expression', expression, offset: open, expr });
      result.expressions.push(expression);
      this.collect(expr, expression);
      textStart = close.end;
      open = source.indexOf('{{', textStart);
    }
    if (textStart < source.length) result.segments.push({ kind: 'text', text: source.slice(textStart) });
    return result;
  }

  private parseExpr(): Expr {
    if (this.depth >= MAX_EXPRESSION_DEPTH) {
      const at = this.scanner.peek().start;
      throw this.fail(`expression nested deeper than ${MAX_EXPRESSION_DEPTH} calls in ${this.display()}`, at);
    }
    this.depth++;
    try {
      return this.parsePrimary();
    } finally {
      this.depth--;
    }
  }

  private parsePrimary(): Expr {
    const tok = this.scanner.next();
    switch (tok.type) {
      case 'string':
      case 'number':
        return { kind: 'literal', value: tok.value };
      case 'ident': {
        const name = tok.value as string;
        if (name === 'true' || name === 'false') return { kind: 'literal', value: name === 'true' };
        if (name === 'null') return { kind: 'literal', value: null };
        const after = this.scanner.peek();
        if (after.type === 'punct' && after.value === '(') return this.parseCall(tok);
        return this.parsePath(tok);
      }
      case 'punct':
      case 'close':
      case 'eof':
        throw this.expected('a value', tok);
      default:
        return assertNever(tok.type, 'token');
    }
  }

  private parseCall(nameTok: Token): Expr {
    const name = nameTok.value as string;
    if (!FUNCTION_SET.has(name)) {
      throw this.fail(`unknown function "${name}" in ${this.display()} (functions: ${FUNCTION_LIST})`, nameTok.start);
    }
    this.scanner.next(); // the '(' seen by the caller
    const fn = name as TemplateFunction;
    switch (fn) {
      case 'secret': {
        // Only a literal: the keys a template needs are then known at save time,
        // and a key can never be computed from data a webhook caller controls.
        const arg = this.scanner.next();
        if (arg.type === 'eof') throw this.unterminated();
        if (arg.type !== 'string') {
          const got = tokenText(this.source, arg);
          throw this.fail(`secret() takes one quoted key, e.g. secret('API_KEY'), not ${got} in ${this.display()}`, arg.start);
        }
        if (arg.value === '') throw this.fail(`secret() needs a non-empty key in ${this.display()}`, arg.start);
        this.expectPunct(')', nameTok, 'secret() takes one argument');
        return { kind: 'secret', key: arg.value as string, offset: nameTok.start };
      }
      case 'json': {
        const arg = this.parseExpr();
        this.expectPunct(')', nameTok, 'json() takes one argument');
        return { kind: 'json', arg };
      }
      case 'default': {
        const value = this.parseExpr();
        this.expectPunct(',', nameTok, 'default() takes a value and a fallback');
        const fallback = this.parseExpr();
        this.expectPunct(')', nameTok, 'default() takes a value and a fallback');
        return { kind: 'default', value, fallback };
      }
      default:
        return assertNever(fn, 'function');
    }
  }

  private parsePath(rootTok: Token): Expr {
    const { scanner } = this;
    const root = rootTok.value as string;
    if (!ROOT_SET.has(root)) {
      throw this.fail(`unknown root "${root}" in ${this.display()} (roots: ${ROOT_LIST})`, rootTok.start);
    }
    const members: PathMember[] = [];
    for (;;) {
      const p = scanner.peek();
      if (p.type !== 'punct' || (p.value !== '.' && p.value !== '[')) break;
      scanner.next();
      const key = scanner.next();
      if (p.value === '.') {
        if (key.type !== 'ident') throw this.expected('a name', key, rootTok.start);
        members.push({ key: key.value, offset: key.start });
        continue;
      }
      if (key.type === 'number') {
        const index = key.value as number;
        if (!Number.isSafeInteger(index) || index < 0) {
          const written = this.source.slice(key.start, key.end);
          throw this.fail(`an index must be a whole number of 0 or more, not ${written} in ${this.display()}`, key.start);
        }
      } else if (key.type !== 'string') {
        throw this.expected('a quoted name or an index', key, rootTok.start);
      }
      members.push({ key: key.value, offset: key.start });
      this.expectPunct(']', rootTok);
    }
    const problem = checkRootPath(root as TemplateRoot, members, rootTok.start);
    if (problem !== undefined) {
      const hint = problem.hint === undefined ? '' : ` (${problem.hint})`;
      throw this.fail(`${problem.what} in ${this.display()}${hint}`, problem.offset);
    }
    const path = members.map((m) => m.key);
    const text = this.source.slice(rootTok.start, scanner.lastEnd);
    return { kind: 'path', ref: { root: root as TemplateRoot, path, text }, offset: rootTok.start };
  }

  /** Takes the punctuation `p` or fails with `expected "p" after <source since from>`. */
  private expectPunct(p: string, from: Token, arityHint?: string): void {
    const tok = this.scanner.next();
    if (tok.type === 'punct' && tok.value === p) return;
    if (tok.type === 'eof') throw this.unterminated();
    const since = this.slice(from.start, tok.start);
    const hint = arityHint !== undefined && tok.type === 'punct' && tok.value === ',' ? ` (${arityHint})` : '';
    throw this.fail(`expected "${p}" after ${since} in ${this.display()}${hint}`, tok.start);
  }

  /** `expected <what>, got <token>, after <source so far> in {{ ... }}`. */
  private expected(what: string, tok: Token, from = this.open + 2): TemplateSyntaxError {
    if (tok.type === 'eof') return this.unterminated();
    const since = this.slice(from, tok.start);
    const where = since === '' ? 'at the start of' : `after ${since} in`;
    return this.fail(`expected ${what}, got ${tokenText(this.source, tok)}, ${where} ${this.display()}`, tok.start);
  }

  private unterminated(): TemplateSyntaxError {
    return this.fail(`unterminated {{ at ${positionText(this.source, this.open)}`, this.open);
  }

  private fail(message: string, offset: number): TemplateSyntaxError {
    return new TemplateSyntaxError(message, this.source, offset, this.expressionSource());
  }

  private slice(from: number, to: number): string {
    return this.source.slice(from, to).trim();
  }

  /** `{{ expr }}` of the expression being parsed, for messages. */
  private display(): string {
    const inner = this.expressionSource();
    return inner === undefined ? `{{ ${this.slice(this.open + 2, this.source.length)}` : `{{ ${inner} }}`;
  }

  /** Source between the braces of the current expression; undefined when it has no `}}`. Only used on failure. */
  private expressionSource(): string | undefined {
    const close = findClose(this.source, this.open + 2);
    return close === -1 ? undefined : this.source.slice(this.open + 2, close).trim();
  }

  private collect(expr: Expr, expression: string): void {
    const { result } = this;
    switch (expr.kind) {
      case 'literal':
        return;
      case 'secret':
        if (!result.secretKeys.includes(expr.key)) result.secretKeys.push(expr.key);
        return;
      case 'json':
        this.collect(expr.arg, expression);
        return;
      case 'default':
        this.collect(expr.value, expression);
        this.collect(expr.fallback, expression);
        return;
      case 'path': {
        const { ref } = expr;
        result.refs.push(ref);
        if (!result.roots.includes(ref.root)) result.roots.push(ref.root);
        if (ref.root === 'tasks') {
          const taskId = ref.path[0] as string;
          const key = `${taskId}\u0000${expression}`;
          if (!this.taskRefKeys.has(key)) {
            this.taskRefKeys.add(key);
            result.taskRefs.push({ taskId, expression });
          }
        }
        return;
      }
      default:
        assertNever(expr, 'expression');
    }
  }
}
