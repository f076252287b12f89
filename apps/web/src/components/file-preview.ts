// What the Files tab shows of a file: its first 64 KiB as text, or as a table
// when it is CSV; nothing for binary content. Pure, so the run of the rules
// (truncation at a line, a multi-byte character cut by the limit, CSV quoting)
// is tested without a browser (ui-logic.test.ts).
import Papa from 'papaparse';

/** How much of a file a preview reads: the rest is never fetched. */
export const PREVIEW_BYTES = 64 * 1024;

export type Preview =
  { kind: 'binary' } | { kind: 'empty' } | { kind: 'text'; text: string; truncated: boolean } | { kind: 'csv'; header: string[]; rows: string[][]; truncated: boolean };

/** A CSV file by its name or its content type. */
export function isCsv(name: string, contentType?: string): boolean {
  return /\.csv$/i.test(name) || /^text\/csv\b/i.test(contentType ?? '');
}

/**
 * The preview of a file whose first `bytes` were read, of `size` bytes in all.
 * A NUL byte or a byte sequence that is not UTF-8 makes it binary. When the
 * file is longer than what was read, the last, partial line is left out (a
 * character cut by the limit is then never shown half).
 */
export function previewOf(bytes: Uint8Array, size: number, name: string, contentType?: string): Preview {
  if (!bytes.length) return { kind: 'empty' };
  if (bytes.includes(0)) return { kind: 'binary' };
  const truncated = size > bytes.length;
  let text: string;
  try {
    // `stream: true`: a sequence cut at the end is held back, not an error.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: truncated });
  } catch {
    return { kind: 'binary' };
  }
  if (truncated) {
    const end = text.lastIndexOf('\n');
    if (end >= 0) text = text.slice(0, end + 1);
  }
  if (!isCsv(name, contentType)) return { kind: 'text', text, truncated };
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: true });
  const [header = [], ...rows] = parsed.data;
  return { kind: 'csv', header, rows, truncated };
}
