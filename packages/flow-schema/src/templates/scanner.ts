import { assertNever } from '@svc/assert';
import { TemplateSyntaxError } from './errors.js';
import { positionText } from './path-text.js';

export type TokenType = 'ident' | 'string' | 'number' | 'punct' | 'close' | 'eof';

export interface Token {
  type: TokenType;
  /** Name for ident and punct, decoded text for string, value for number. */
  value: string | number;
  start: number;
  end: number;
}

/**
 * Reads the tokens of one `{{ ... }}` expression, one character at a time with
 * no backtracking. `fail` builds the error for a bad character or escape, so
 * the parser can name the whole expression in it.
 */
export class Scanner {
  /** End of the last token taken by `next()`. */
  lastEnd = 0;
  private pos = 0;
  private ahead: Token | undefined;

  constructor(
    private readonly source: string,
    private readonly fail: (message: string, offset: number) => TemplateSyntaxError,
  ) {}

  /** Continues scanning at `pos`, forgetting any token looked ahead. */
  reset(pos: number): void {
    this.pos = pos;
    this.ahead = undefined;
  }

  peek(): Token {
    this.ahead ??= this.scan();
    return this.ahead;
  }

  next(): Token {
    const tok = this.ahead ?? this.scan();
    this.ahead = undefined;
    this.lastEnd = tok.end;
    return tok;
  }

  private scan(): Token {
    const s = this.source;
    let i = this.pos;
    while (i < s.length && isSpace(s.charCodeAt(i))) i++;
    if (i >= s.length) {
      this.pos = i;
      return { type: 'eof', value: '', start: i, end: i };
    }
    const c = s.charCodeAt(i);
    const start = i;
    let tok: Token;
    if (c === 0x7d /* } */ && s.charCodeAt(i + 1) === 0x7d) {
      tok = { type: 'close', value: '}}', start, end: i + 2 };
    } else if (c === 0x27 /* ' */ || c === 0x22 /* " */) {
      tok = this.scanString(start, c);
    } else if (isDigit(c) || (c === 0x2d /* - */ && isDigit(s.charCodeAt(i + 1)))) {
      tok = this.scanNumber(start);
    } else if (isIdentStart(c)) {
      i++;
      while (i < s.length && isIdentPart(s.charCodeAt(i))) i++;
      tok = { type: 'ident', value: s.slice(start, i), start, end: i };
    } else if (c === 0x2e || c === 0x5b || c === 0x5d || c === 0x28 || c === 0x29 || c === 0x2c /* . [ ] ( ) , */) {
      tok = { type: 'punct', value: s[i], start, end: i + 1 };
    } else {
      const ch = String.fromCodePoint(s.codePointAt(i) as number);
      throw this.fail(`unexpected character ${JSON.stringify(ch)} at ${positionText(s, i)}`, i);
    }
    this.pos = tok.end;
    return tok;
  }

  private scanString(start: number, quote: number): Token {
    const s = this.source;
    let out = '';
    let chunk = start + 1;
    let i = start + 1;
    for (;;) {
      if (i >= s.length) throw unterminatedString(s, start);
      const c = s.charCodeAt(i);
      if (c === quote) break;
      if (c !== 0x5c /* \ */) {
        i++;
        continue;
      }
      out += s.slice(chunk, i);
      const e = s[i + 1];
      switch (e) {
        case '\\':
        case "'":
        case '"':
        case '/':
          out += e;
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const hex = s.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw this.fail(`\\u needs four hex digits at ${positionText(s, i)}`, i);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
          break;
        }
        case undefined:
          throw unterminatedString(s, start);
        default:
          throw this.fail(`unknown escape "\\${e}" at ${positionText(s, i)}`, i);
      }
      i += 2;
      chunk = i;
    }
    out += s.slice(chunk, i);
    return { type: 'string', value: out, start, end: i + 1 };
  }

  private scanNumber(start: number): Token {
    const s = this.source;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) i++;
    while (isDigit(s.charCodeAt(i))) i++;
    if (s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1))) {
      i++;
      while (isDigit(s.charCodeAt(i))) i++;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45 /* e E */) {
      let j = i + 1;
      const sign = s.charCodeAt(j);
      if (sign === 0x2b || sign === 0x2d) j++;
      if (isDigit(s.charCodeAt(j))) {
        while (isDigit(s.charCodeAt(j))) j++;
        i = j;
      }
    }
    if (isIdentPart(s.charCodeAt(i))) {
      let j = i;
      while (isIdentPart(s.charCodeAt(j))) j++;
      throw this.fail(`invalid number ${JSON.stringify(s.slice(start, j))} at ${positionText(s, start)}`, start);
    }
    return { type: 'number', value: Number(s.slice(start, i)), start, end: i };
  }
}

/** The expression never ends, so no `in {{ ... }}` can be shown: the position says where. */
function unterminatedString(s: string, start: number): TemplateSyntaxError {
  return new TemplateSyntaxError(`unterminated string at ${positionText(s, start)}`, s, start);
}

/** Offset of the `}}` that ends the expression starting at `from`, skipping quoted strings; -1 if none. */
export function findClose(s: string, from: number): number {
  let i = from;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 0x7d && s.charCodeAt(i + 1) === 0x7d) return i;
    if (c === 0x27 || c === 0x22) {
      i++;
      while (i < s.length && s.charCodeAt(i) !== c) i += s.charCodeAt(i) === 0x5c ? 2 : 1;
      if (i >= s.length) return -1;
    }
    i++;
  }
  return -1;
}

/** How a token is named in a message. */
export function tokenText(source: string, tok: Token): string {
  switch (tok.type) {
    case 'eof':
      return 'the end of the template';
    case 'close':
      return '"}}"';
    case 'punct':
    case 'ident':
      return `"${tok.value}"`;
    case 'string':
    case 'number':
      return source.slice(tok.start, tok.end);
    default:
      return assertNever(tok.type, 'token');
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isIdentStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}
