const UNIT_BYTES: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

const BYTE_SIZE = /^(\d+(?:\.\d+)?)\s?([a-z]+)?$/i;

/** A text is not a byte size. */
export class ByteSizeError extends Error {
  override readonly name = 'ByteSizeError';
  /** @param reason what is wrong beyond the shape; absent when the shape itself is wrong. */
  constructor(
    readonly text: string,
    readonly reason?: string,
  ) {
    super(`not a byte size: ${JSON.stringify(text)} (${reason ?? 'expected a whole number of bytes or a number with B, KB, MB, GB, KiB, MiB or GiB, e.g. 10MiB'})`);
  }
}

/**
 * Parses a byte size: a plain integer (`1048576`) or a number with one of the
 * units B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024), with an
 * optional space and in any letter case: `10MiB`, `1.5 GB`, `512kb`.
 * @throws ByteSizeError when the text has another shape, a fraction without a
 *   unit, or comes to a fractional or unsafe number of bytes.
 */
export function parseByteSize(text: string): number {
  const match = BYTE_SIZE.exec(text.trim());
  if (!match) throw new ByteSizeError(text);
  const [, number, unit] = match;
  if (unit === undefined) {
    if (number.includes('.')) throw new ByteSizeError(text, 'a plain number of bytes must be a whole number');
    return checked(text, Number(number));
  }
  const factor = UNIT_BYTES[unit.toLowerCase()];
  if (factor === undefined) throw new ByteSizeError(text, `unknown unit ${JSON.stringify(unit)}; use B, KB, MB, GB, KiB, MiB or GiB`);
  return checked(text, Number(number) * factor);
}

function checked(text: string, bytes: number): number {
  if (!Number.isSafeInteger(bytes)) throw new ByteSizeError(text, 'it must come to a whole number of bytes below 2^53');
  return bytes;
}

/** Formats bytes with the largest binary unit that divides them exactly: `10485760` -> `10MiB`, `1500` -> `1500B`. */
export function formatByteSize(bytes: number): string {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`cannot format ${bytes} as a byte size`);
  for (const [unit, factor] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes > 0 && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return `${bytes}B`;
}
