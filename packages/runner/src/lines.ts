// Turns a process's output bytes into masked log lines. Masking happens on whole
// lines, so a secret written in two writes is still caught, and before the cut of
// an over-long line into MAX_LINE_BYTES pieces, so a secret across a cut is too.
// A line that never ends is flushed once it passes `maxPendingChars`, at a point
// that splits no secret, so memory stays bounded.
import { StringDecoder } from 'node:string_decoder';
import type { Masker } from '@svc/masking';

/** A log line longer than this (UTF-8 bytes) is cut into pieces of at most this size. */
export const MAX_LINE_BYTES = 64 * 1024;

export interface LineSplitterOptions {
  /** Masks each line (secret values in all their forms, @svc/masking). */
  masker: Masker;
  /** Largest piece of a long line, in UTF-8 bytes; never splits a character. Default MAX_LINE_BYTES (64 KiB). */
  maxLineBytes?: number;
  /** An unfinished line longer than this many characters is flushed early. Default 1 MiB characters. */
  maxPendingChars?: number;
}

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private readonly masker: Masker;
  private readonly maxLineBytes: number;
  private readonly maxPendingChars: number;

  constructor(opts: LineSplitterOptions) {
    this.masker = opts.masker;
    this.maxLineBytes = opts.maxLineBytes ?? MAX_LINE_BYTES;
    this.maxPendingChars = Math.max(opts.maxPendingChars ?? 1024 * 1024, 2 * this.masker.longest + 2);
  }

  /** The complete lines that `chunk` finishes, masked and cut. */
  push(chunk: Buffer | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (!text) return [];
    const out: string[] = [];
    let buf = this.pending + text;
    let from = 0;
    for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n', from)) {
      this.emit(stripCr(buf.slice(from, nl)), out);
      from = nl + 1;
    }
    buf = buf.slice(from);
    while (buf.length > this.maxPendingChars) {
      const cut = this.safeCut(buf);
      this.emit(buf.slice(0, cut), out);
      buf = buf.slice(cut);
    }
    this.pending = buf;
    return out;
  }

  /** The last unfinished line, if any (the stream ended without a newline). */
  end(): string[] {
    const out: string[] = [];
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest) this.emit(stripCr(rest), out);
    return out;
  }

  private emit(line: string, out: string[]): void {
    out.push(...cutUtf8(this.masker.text(line), this.maxLineBytes));
  }

  /** Where to flush an unfinished line: as late as possible without splitting a secret. */
  private safeCut(buf: string): number {
    let cut = this.maxPendingChars;
    for (;;) {
      const start = this.masker.straddleStart(buf, cut);
      if (start === -1) return cut;
      if (start === 0) return this.maxPendingChars; // a secret longer than the window: nothing better to do
      cut = start;
    }
  }
}

/** `text` cut into pieces of at most `maxBytes` UTF-8 bytes, never inside a character; '' stays one empty line. */
export function cutUtf8(text: string, maxBytes: number): string[] {
  // Fast path: a UTF-16 code unit is at most 3 UTF-8 bytes.
  if (text.length * 3 <= maxBytes) return [text];
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return [text];
  const out: string[] = [];
  let from = 0;
  while (from < bytes.length) {
    let to = Math.min(from + maxBytes, bytes.length);
    // Back off continuation bytes (10xxxxxx) so the cut lands on a character start.
    while (to < bytes.length && to > from && (bytes[to] & 0xc0) === 0x80) to--;
    if (to === from) to = Math.min(from + maxBytes, bytes.length); // maxBytes below one character
    out.push(bytes.toString('utf8', from, to));
    from = to;
  }
  return out;
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
