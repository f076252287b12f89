#!/usr/bin/env node
// The spawn helper: a small process that starts task processes for a large
// one. Forking copies the parent's page tables, so a spawn from the 200 MiB
// dispatcher costs milliseconds of CPU where the same spawn from this process
// (a bare Node runtime, nothing else loaded) costs a fraction of that, and
// none of it on the dispatcher's event loop. It only spawns and relays: each
// task runs in its own process group (detached), which the runner signals
// directly by its pid; output and the exit status come back as messages.
// It exits when its parent goes away (the IPC channel closes), and when that
// happens while tasks still run (the dispatcher was killed), it kills their
// process groups first: the engine fails such task runs `lost` and retries
// them elsewhere, and the old attempt must not run on beside the new one.
import { spawn, type ChildProcess } from 'node:child_process';
import { identityOf, onStreamDone, TASK_SPAWN_OPTIONS } from './process.js';
import type { FromSpawner, ToSpawner } from './spawn-protocol.js';

const children = new Map<number, ChildProcess>();
const send = (m: FromSpawner) => process.send?.(m);

process.on('message', (m: ToSpawner) => {
  switch (m.t) {
    case 'start': {
      const child = spawn(m.file, m.args, { argv0: m.argv0, cwd: m.cwd, env: m.env, ...identityOf(m), ...TASK_SPAWN_OPTIONS });
      children.set(m.id, child);
      // `on`, not `once`: a later error must not become an uncaught 'error' event.
      child.on('error', (err: NodeJS.ErrnoException) => {
        if (child.pid === undefined) {
          children.delete(m.id);
          send({ t: 'error', id: m.id, code: err.code ?? 'EUNKNOWN', message: err.message });
        }
      });
      child.once('spawn', () => send({ t: 'spawn', id: m.id, pid: child.pid! }));
      // The ends of both streams and the exit travel as one message once all three happened (most tasks print little).
      let open = 2;
      let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
      const finish = () => {
        if (open === 0 && exit) send({ t: 'done', id: m.id, ...exit });
      };
      for (const [s, pipe] of [child.stdout, child.stderr].entries()) {
        pipe.on('data', (d: Buffer) => send({ t: 'data', id: m.id, s: s as 0 | 1, d }));
        onStreamDone(pipe, () => {
          open--;
          finish();
        });
      }
      child.once('exit', (code, signal) => {
        children.delete(m.id);
        exit = { code, signal };
        // A leftover of the group may hold the pipes open: the runner must learn of the exit now, to stop it.
        if (open > 0) send({ t: 'exit', id: m.id, code, signal });
        finish();
      });
      break;
    }
    case 'pause': {
      const child = children.get(m.id);
      for (const p of [child?.stdout, child?.stderr]) {
        if (!p) continue;
        if (m.paused) p.pause();
        else p.resume();
      }
      break;
    }
  }
});
process.on('disconnect', () => {
  for (const child of children.values()) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // ESRCH: that group is gone already.
    }
  }
  process.exit(0);
});
