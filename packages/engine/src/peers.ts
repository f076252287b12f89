// The peers systems call around a loop, as interfaces (types only). A change
// causes follow-ups, a follow-up triggers, plans or completes, which causes
// follow-ups again: so the systems in that loop get each other through these
// interfaces in their constructors (engine.ts wires them, in dependency
// order) instead of importing each other's files, and the engine's imports
// stay one-way (e2e/test/engine-imports-form-no-circle.test.ts).
import type { FollowUp } from './types.js';

/** Runs follow-ups after their commit (systems/followups.ts FollowUps). */
export interface FollowUpRunner {
  /** Runs them and those they cause; a failure is logged and left in the outbox for the backstop. */
  follow(f: FollowUp[]): Promise<void>;
  /** Runs them and those they cause; a failure is thrown. */
  run(f: FollowUp[]): Promise<void>;
  /** The backstop: runs follow-ups left in the outbox; how many it found. */
  drain(opts?: { olderThanMs?: number; limit?: number }): Promise<number>;
}
