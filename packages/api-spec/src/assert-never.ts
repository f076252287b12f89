/** Ends every `switch` over a union, so a new member breaks the build where it is not handled. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
