// Secret masking of log text. One regular expression with the values sorted
// longest first: alternation is tried left to right at each position, so where
// `abc` and `abcdef` both match, the longer one is replaced whole and no tail of
// a secret leaks next to the ***.

export const MASK = '***';

export class LineMasker {
  private readonly pattern: RegExp | null;
  /** Length of the longest value: a cut in a long line must not fall inside one. */
  readonly longest: number;
  private readonly values: string[];

  constructor(values: string[]) {
    this.values = [...new Set(values.filter((v) => v.length > 0))].sort((a, b) => b.length - a.length);
    this.longest = this.values[0]?.length ?? 0;
    this.pattern = this.values.length ? new RegExp(this.values.map(escapeRegExp).join('|'), 'g') : null;
  }

  /** `text` with every occurrence of every value replaced by ***. */
  mask(text: string): string {
    if (!this.pattern) return text;
    return text.replace(this.pattern, MASK);
  }

  /**
   * The start of the earliest value occurrence that begins before `at` and ends
   * after it, or -1: cutting `text` at `at` would split that secret in two.
   */
  straddleStart(text: string, at: number): number {
    let start = -1;
    for (const v of this.values) {
      // Any occurrence found from here that starts before `at` reaches past it.
      const i = text.indexOf(v, Math.max(0, at - v.length + 1));
      if (i !== -1 && i < at && (start === -1 || i < start)) start = i;
    }
    return start;
  }
}

/**
 * The values to mask for `mask_values`: each value, plus each line of a multi-line
 * value (a PEM key, say), because log text is split into lines before masking and
 * the whole value can then never match. Lines shorter than 4 characters are left
 * out so that `}` of a JSON secret does not mask every brace in the log.
 */
export function maskValuesForLines(values: string[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (!v) continue;
    out.push(v);
    if (!/[\r\n]/.test(v)) continue;
    for (const line of v.split(/\r?\n|\r/)) if (line.trim().length >= 4) out.push(line);
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
