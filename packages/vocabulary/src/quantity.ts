// Kubernetes resource quantities (`500m`, `1.5Gi`, `1e3`), read as
// apimachinery's resource.Quantity reads them, so the flow schema, the
// dispatcher's Docker and Kubernetes executors and the Kubernetes stand-in
// accept the same texts and give them the same number.
//
// The grammar (resource.Quantity's documentation; the exponent is a 32-bit
// integer, as ParseQuantity reads it with strconv.ParseInt):
//
//   quantity  ::= sign? number suffix
//   number    ::= digits | digits "." | digits "." digits | "." digits
//   suffix    ::= "" | n u m k M G T P E        (decimal SI, 10^-9 .. 10^18)
//               | Ki Mi Gi Ti Pi Ei             (binary SI, 2^10 .. 2^60)
//               | (e | E) sign? digits          (decimal exponent)
//
// `K` (upper case), `Kb`, `1.5.5`, `1e`, a space and the empty text are refused.
// ParseQuantity's scanner also takes a lone sign or a lone "." as zero; the
// documented grammar does not, and neither does this module.
//
// Like Kubernetes, a value is held to nano precision, rounded away from zero
// (`0.1n` is 1n), and capped at 2^63-1 units.

/** Up to `max` (a 10-digit number), as a regular expression: leading zeros allowed. */
function upTo(max: string): string {
  const alts = ['[0-9]{1,9}'];
  for (let i = 0; i < max.length; i++) {
    const d = Number(max[i]);
    const rest = max.length - i - 1;
    const last = i === max.length - 1;
    if (last) alts.push(`${max.slice(0, i)}[0-${d}]`);
    else if (d > 0) alts.push(`${max.slice(0, i)}${d === 1 ? '0' : `[0-${d - 1}]`}[0-9]{${rest}}`);
  }
  return `0*(?:${alts.join('|')})`;
}

/** A 32-bit exponent, as Go's strconv.ParseInt(s, 10, 32) reads it. */
const INT32 = `(?:\\+?${upTo('2147483647')}|-${upTo('2147483648')})`;

/**
 * The JSON Schema pattern of a quantity; the flow schema's `resources` fields
 * use it. The examples in quantity-examples.ts run against it and
 * {@link parseQuantity} alike (quantity.test.ts, and the flow schema's tests).
 */
export const QUANTITY_PATTERN = `^[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[KMGTPE]i|[numkMGTPE]|[eE]${INT32})?$`;

const SCANNER = new RegExp(`^(?<sign>[+-]?)(?:(?<int>[0-9]+)(?:\\.(?<frac>[0-9]*))?|\\.(?<fracOnly>[0-9]+))(?:(?<bin>[KMGTPE])i|(?<dec>[numkMGTPE])|[eE](?<exp>[+-]?[0-9]+))?$`);

const DECIMAL_EXPONENT: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_EXPONENT: Record<string, number> = { K: 10, M: 20, G: 30, T: 40, P: 50, E: 60 };
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const NANOS_PER_UNIT = 1_000_000_000n;
/** Kubernetes caps a quantity at the largest int64 number of units. */
const MAX_NANOS = (2n ** 63n - 1n) * NANOS_PER_UNIT;

/** A parsed quantity: its text and its value in nano units (cores, bytes, or count). */
export interface Quantity {
  readonly text: string;
  /** The value times 10^9, rounded away from zero, capped at ±(2^63-1)·10^9. */
  readonly nanos: bigint;
}

/** Reads a quantity; null when Kubernetes would refuse the text. */
export function parseQuantity(text: string): Quantity | null {
  const m = SCANNER.exec(text);
  if (!m?.groups) return null;
  const g = m.groups;
  const frac = g.frac ?? g.fracOnly ?? '';
  const digits = BigInt(`${g.int ?? ''}${frac}` || '0');
  let exp10 = -frac.length;
  let exp2 = 0;
  if (g.bin) exp2 = BINARY_EXPONENT[g.bin]!;
  else if (g.dec) exp10 += DECIMAL_EXPONENT[g.dec];
  else if (g.exp !== undefined) {
    const e = Number(g.exp);
    if (!Number.isInteger(e) || e < INT32_MIN || e > INT32_MAX) return null;
    exp10 += e;
  }
  const negative = g.sign === '-';
  return { text, nanos: (negative ? -1n : 1n) * toNanos(digits, exp10 + 9, exp2) };
}

/** digits · 10^exp10 · 2^exp2, rounded up to an integer and capped at {@link MAX_NANOS}. */
function toNanos(digits: bigint, exp10: number, exp2: number): bigint {
  if (digits === 0n) return 0n;
  // Past these bounds the result is the cap or the smallest step whatever the digits.
  const scaled = digits * 2n ** BigInt(exp2);
  if (exp10 > 40) return MAX_NANOS;
  if (exp10 < -String(scaled).length) return 1n;
  const value = exp10 >= 0 ? scaled * 10n ** BigInt(exp10) : ceilDiv(scaled, 10n ** BigInt(-exp10));
  return value > MAX_NANOS ? MAX_NANOS : value;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** True when Kubernetes accepts `text` as a quantity. */
export function isQuantity(text: string): boolean {
  return parseQuantity(text) !== null;
}

/**
 * The value in units of 10^-scale, rounded away from zero, as Kubernetes'
 * Quantity.ScaledValue: scale 0 gives bytes (Quantity.Value), 3 millicores
 * (MilliValue), 9 nano CPUs (Docker's NanoCpus).
 */
export function quantityScaled(q: Quantity, scale: 0 | 3 | 6 | 9): bigint {
  const step = 10n ** BigInt(9 - scale);
  const magnitude = ceilDiv(q.nanos < 0n ? -q.nanos : q.nanos, step);
  return q.nanos < 0n ? -magnitude : magnitude;
}

/** Negative, zero or positive as `a` is less than, equal to or greater than `b`. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}
