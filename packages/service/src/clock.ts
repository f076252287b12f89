/** Time as a dependency, so tests can drive timeouts and retention without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
