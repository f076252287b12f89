/** Ends every switch over a union, so that a new member breaks the build where it is not handled. */
export function assertNever(x: never): never {
  throw new Error(`unexpected value ${String(x)}`);
}
