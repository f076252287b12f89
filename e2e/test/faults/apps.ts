// Finding and restarting the service processes of a stack by app name, for
// the fault tests that kill them.
import fs from 'node:fs';
import type { Proc, Stack } from '../stack.js';
import { until } from '../engine-support.js';

export type App = 'api-gateway' | 'scheduler' | 'dispatcher' | 'maintenance';

const running = (p: Proc) => p.child.exitCode === null && p.child.signalCode === null;

/** The live processes of one app (by the script they run). */
export function procsOf(s: Stack, app: App): Proc[] {
  return s.procs.filter((p) => {
    if (!running(p) || !p.child.pid) return false;
    try {
      return fs.readFileSync(`/proc/${p.child.pid}/cmdline`, 'utf8').includes(`apps/${app}/dist/main.js`);
    } catch {
      return false;
    }
  });
}

/** SIGKILLs a process and waits for it to be gone. */
export async function kill9(p: Proc): Promise<void> {
  p.child.kill('SIGKILL');
  await p.exited;
}

/** Waits until the stack's gateway answers /healthz again (after a restart). */
export async function gatewayUp(s: Stack, ms = 90_000): Promise<void> {
  await until(
    'the gateway to answer',
    async () => {
      try {
        return (await fetch(`${s.url}/healthz`)).ok;
      } catch {
        return false;
      }
    },
    ms,
    100,
  );
}

/** Waits until a process started with startApp has an online instance row. */
export async function online(s: Stack, p: Proc, ms = 90_000): Promise<string> {
  return until(
    'the restarted process to come online',
    async () => {
      try {
        const r = await s.db.query(`SELECT id FROM instances WHERE stopped_at IS NULL AND (metadata->>'pid')::int = $1`, [p.child.pid]);
        return r.rows[0]?.id as string | undefined;
      } catch {
        return undefined;
      }
    },
    ms,
    100,
  );
}
