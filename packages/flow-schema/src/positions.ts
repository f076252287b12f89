/** Where a node of the YAML source sits, as UTF-16 offsets into the source. */
export interface NodeOffsets {
  /** Start of the value (the opening quote of a quoted scalar); -1 when the value is empty. */
  readonly value: number;
  /** Start of the key when the node is a mapping value. */
  readonly key?: number;
  /** The node is a sequence or mapping (reported at its key, where the block visibly starts). */
  readonly collection?: boolean;
}

/** A 1-based line and column (UTF-16 code units, as editors and LSP count them). */
export interface LineColumn {
  line: number;
  column: number;
}

/**
 * Maps JSON pointers of the loaded value to places in the YAML source.
 * Nodes reached through an alias are not indexed separately: a pointer below
 * an alias resolves to the alias itself (`*name`), which is where that value
 * is used in the document.
 */
export class SourcePositions {
  private readonly lineStarts: number[];

  constructor(
    private readonly source: string,
    private readonly nodes: ReadonlyMap<string, NodeOffsets>,
  ) {
    this.lineStarts = computeLineStarts(source);
  }

  /**
   * The place of `pointer`, or of its nearest indexed ancestor. `at: 'key'`
   * asks for the key of a mapping entry (unknown properties are reported on
   * the key, since that is the text to change). A collection that is a
   * mapping value is also placed at its key: in block style its content
   * starts on the next line, under the key a person looks for.
   */
  locate(pointer: string, at: 'key' | 'value' = 'value'): LineColumn | undefined {
    let p = pointer;
    for (;;) {
      const node = this.nodes.get(p);
      if (node !== undefined) {
        const preferKey = at === 'key' || node.collection === true || node.value < 0;
        const offset = preferKey && node.key !== undefined ? node.key : node.value;
        if (offset !== undefined && offset >= 0) return this.lineColumn(offset);
      }
      if (p === '') return undefined;
      p = p.slice(0, p.lastIndexOf('/'));
    }
  }

  /** 1-based line and column of a UTF-16 offset. */
  lineColumn(offset: number): LineColumn {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    const lineStart = this.lineStarts[lo];
    // A byte order mark is invisible in editors, so it does not count as a column.
    const bom = lo === 0 && this.source.charCodeAt(0) === 0xfeff && offset > 0 ? 1 : 0;
    return { line: lo + 1, column: offset - lineStart - bom + 1 };
  }
}

function computeLineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    // YAML line breaks are LF, CRLF and a lone CR.
    if (c === 0x0a || (c === 0x0d && source.charCodeAt(i + 1) !== 0x0a)) starts.push(i + 1);
  }
  return starts;
}

/** Escapes one reference token of a JSON pointer (RFC 6901). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Splits a JSON pointer into its unescaped tokens. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}
