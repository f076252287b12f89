// What masking a secret value means, for every place that masks: the
// runner's log lines and the engine's completions, alert messages, the text
// of git commands, the AI layer's tool results. One mask, one set of forms
// of a value, one replacement:
//
// - a value is masked wherever it appears whole, and so are the forms it
//   takes once printed inside other text: inside a JSON string (escaped
//   quotes, backslashes, newlines), URL-encoded as a component, as a whole
//   URL and as a form field, since outputs and errors often echo JSON or
//   URLs;
// - a multi-line value (a PEM key) is also masked line by line, since log
//   text is split into lines before it is masked and the whole value can
//   then never match; lines shorter than MIN_PART_LENGTH (trimmed) are left
//   out, so the `}` of a JSON secret does not mask every brace;
// - all forms go into one regular expression, longest first: alternation is
//   tried left to right at each position, so where `abc` and `abcdef` both
//   match, the longer is replaced whole and no tail of a secret is left
//   beside the mask.
//
// Pure and browser-safe: no I/O, no Node built-ins, no dependencies. What
// "masked" means is the table of `masking.test.ts`.

/** What replaces a secret value. */
export const MASK = '***';

/**
 * A part of a value (a line of a multi-line value, the password of
 * `user:password`) is masked alone only from this many characters
 * (trimmed): shorter parts are ordinary text.
 */
export const MIN_PART_LENGTH = 4;

/** `application/x-www-form-urlencoded` of one value: what a form field or a URLSearchParams holds. */
function formEncode(v: string): string {
  return encodeURIComponent(v)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

const URL_FORMS: readonly ((v: string) => string)[] = [encodeURIComponent, encodeURI, formEncode];

/**
 * The texts that stand for `value` in output (see the top of this file): the
 * value, its JSON-string and URL forms, and its lines of at least
 * MIN_PART_LENGTH characters, as written and trimmed. None for ''.
 */
export function maskForms(value: string): string[] {
  if (!value) return [];
  const out = new Set<string>([value, JSON.stringify(value).slice(1, -1)]);
  for (const enc of URL_FORMS) {
    try {
      out.add(enc(value));
    } catch {
      // A lone surrogate cannot be URL-encoded: only the other forms then.
    }
  }
  if (/[\r\n]/.test(value)) {
    for (const line of value.split(/\r?\n|\r/)) {
      const t = line.trim();
      if (t.length < MIN_PART_LENGTH) continue;
      out.add(line);
      out.add(t);
    }
  }
  out.delete('');
  return [...out];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Masks text and JSON values against a set of secret values (each in all its forms). */
export class Masker {
  /** Every form of every value, longest first. */
  private readonly forms: readonly string[];
  private readonly pattern: RegExp | null;
  /**
   * Length of the longest form: a stream cut into pieces must not cut inside
   * one (a reader of a stream keeps at least this much before a cut).
   */
  readonly longest: number;

  /** `values`: the secret values; '' is ignored, duplicates are harmless. */
  constructor(values: Iterable<string>) {
    const all = new Set<string>();
    for (const v of values) for (const f of maskForms(v)) all.add(f);
    this.forms = [...all].sort((a, b) => b.length - a.length);
    this.longest = this.forms[0]?.length ?? 0;
    this.pattern = this.forms.length ? new RegExp(this.forms.map(escapeRegExp).join('|'), 'g') : null;
  }

  /** False when there is nothing to mask (no value, or only ''). */
  get masks(): boolean {
    return this.pattern !== null;
  }

  /** `s` with every occurrence of every form replaced by MASK. */
  text(s: string): string {
    return this.pattern ? s.replace(this.pattern, MASK) : s;
  }

  /** A JSON value with every string, and every object key, masked at any depth. */
  value(v: unknown): unknown {
    if (!this.pattern) return v;
    if (typeof v === 'string') return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        // A `__proto__` key must stay an own key, not set the prototype.
        Object.defineProperty(out, this.text(k), { value: this.value(x), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return v;
  }

  /**
   * The start of the earliest occurrence of a form that begins before `at`
   * and ends after it, or -1: cutting `text` at `at` would split that secret
   * in two, and neither piece would be masked.
   */
  straddleStart(text: string, at: number): number {
    let start = -1;
    for (const f of this.forms) {
      // Any occurrence found from here that starts before `at` reaches past it.
      const i = text.indexOf(f, Math.max(0, at - f.length + 1));
      if (i !== -1 && i < at && (start === -1 || i < start)) start = i;
    }
    return start;
  }
}

/** `text` masked against `values` (a Masker built for one use). */
export function maskText(text: string, values: Iterable<string>): string {
  return new Masker(values).text(text);
}
