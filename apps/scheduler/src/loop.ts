// A loop of turns with a pause after each that a stop cuts short: the
// scheduler's sync/tick/sweep loop and the backfill advancer run so.

export interface Loop {
  /** Ends the pause at once and resolves after the turn running (if any). */
  stop(): Promise<void>;
}

/** Runs `turn` until stopped, pausing `pauseMs` after each; `turn` can ask whether a stop came, to end between its steps. */
export function runLoop(turn: (stopped: () => boolean) => Promise<void>, pauseMs: number): Loop {
  let stopped = false;
  let wake: () => void = () => undefined;
  const done = (async () => {
    while (!stopped) {
      await turn(() => stopped);
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pauseMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake();
      await done;
    },
  };
}
