/**
 * Ends every `switch` over a union (a state, an event, an error code): the
 * argument only type-checks when every member has been handled, so a new
 * member breaks the build where it is not. Reached at run time (a value from
 * outside the type system), it throws.
 *
 * @param value the value left over; `never` when the switch is exhaustive
 * @param what what the value is, for the message (default `value`):
 *   `assertNever(state, 'execution state')` throws "unexpected execution state: ..."
 */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${describe(value)}`);
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value); // undefined, functions and symbols stringify to undefined
  } catch {
    return String(value); // bigints and cycles
  }
}
