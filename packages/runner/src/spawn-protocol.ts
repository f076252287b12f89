// Messages between a runner that spawns through a helper process and the
// helper (spawner.ts), over Node's IPC channel with `advanced` serialization
// (output chunks travel as bytes, not JSON).

/** Runner → helper. */
export type ToSpawner =
  | { t: 'start'; id: number; file: string; args: string[]; argv0: string; cwd: string; env: Record<string, string>; uid?: number; gid?: number }
  /** Stop (or resume) reading the task's output: the runner's back-pressure. */
  | { t: 'pause'; id: number; paused: boolean };

/** Helper → runner. */
export type FromSpawner =
  | { t: 'spawn'; id: number; pid: number }
  | { t: 'error'; id: number; code: string; message: string }
  | { t: 'data'; id: number; s: 0 | 1; d: Uint8Array }
  /** The process exited while its output streams are still open (a leftover of its group holds them). */
  | { t: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  /** Both output streams ended and the process exited (the only message after `spawn` for most tasks). */
  | { t: 'done'; id: number; code: number | null; signal: NodeJS.Signals | null };
