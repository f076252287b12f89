// The spec's Duration: one or more groups of a decimal number and a unit
// (Go's time.ParseDuration without the sign, which no field of the spec can
// use, and without Go's bare-dot forms `.5s` and `1.s`, which are not decimal
// numbers as people write them). Both micro signs are accepted because they
// look identical on screen.
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 MICRO SIGN
  μs: 1e-3, // U+03BC GREEK SMALL LETTER MU
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const GROUP_SOURCE = String.raw`([0-9]+(?:\.[0-9]+)?)(ns|us|µs|μs|ms|s|m|h)`;

/**
 * The whole grammar as a JSON Schema `pattern`, so the flow file schema and
 * this parser accept exactly the same texts: one or more groups of a decimal
 * number (digits, optionally a dot and more digits) and a unit.
 */
export const DURATION_PATTERN = '^(?:[0-9]+(?:\\.[0-9]+)?(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$';

/** A text is not a Duration. */
export class DurationError extends Error {
  override readonly name = 'DurationError';
  constructor(readonly text: string) {
    super(`not a duration: ${JSON.stringify(text)} (expected e.g. 30s, 10m, 1h30m, 1.5s, 300ms)`);
  }
}

/**
 * Parses a Duration such as `1h30m`, `1.5s` or `300ms` into milliseconds.
 * Sub-millisecond units give a fractional result (`300us` is 0.3).
 * @throws DurationError on anything else, including an empty string, a bare
 *   number, a sign, spaces and unknown units.
 */
export function parseDuration(text: string): number {
  if (text.length === 0) throw new DurationError(text);
  let total = 0;
  // A sticky regex is stateful (lastIndex), so each call gets its own.
  const group = new RegExp(GROUP_SOURCE, 'y');
  while (group.lastIndex < text.length) {
    const match = group.exec(text);
    if (!match) throw new DurationError(text);
    const [, number, unit] = match;
    total += Number(number) * UNIT_MS[unit];
  }
  if (!Number.isFinite(total)) throw new DurationError(text);
  // Summing ms and sub-ms groups leaves binary noise (1.1s -> 1100.0000000000002).
  return Math.round(total * 1e6) / 1e6;
}

/**
 * Formats milliseconds as the shortest Duration that {@link parseDuration}
 * reads back to the same value: `5400000` -> `1h30m`, `1500` -> `1.5s`,
 * `300` -> `300ms`, `0` -> `0s`.
 * @throws RangeError for negative or non-finite input (a Duration has no sign).
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot format ${ms} ms as a duration`);
  if (ms === 0) return '0s';
  if (ms < 1) {
    const us = ms * 1000;
    return us >= 1 ? `${trim(us)}µs` : `${trim(ms * 1e6)}ns`;
  }
  if (ms < 1000) return `${trim(ms)}ms`;
  let rest = ms;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  return `${hours ? `${hours}h` : ''}${minutes ? `${minutes}m` : ''}${seconds ? `${trim(seconds)}s` : ''}`;
}

function trim(n: number): string {
  // Nine decimals covers nanoseconds at the second scale; more would only print float noise.
  return String(Number(n.toFixed(9)));
}
