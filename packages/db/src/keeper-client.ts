import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmbeddedPostgresOptions } from './embedded.js';

export interface KeptPostgres {
  url: string;
  adminUrl: string;
  port: number;
  /** Stops the cluster and waits for the keeper to exit. */
  stop(): Promise<void>;
  keeper: ChildProcess;
}

export interface KeeperOptions extends Omit<EmbeddedPostgresOptions, 'dir' | 'onLog'> {
  /**
   * Let this process exit while the cluster runs; the keeper then stops the
   * cluster when this process is gone. Default false.
   */
  unref?: boolean;
  /** Delete `dir` when the cluster stops (throwaway test clusters). Default false. */
  ephemeral?: boolean;
  /** Where the keeper's output goes. Default: inherited. */
  stdio?: 'inherit' | 'ignore';
}

/**
 * Starts an embedded PostgreSQL cluster under `dir` in a keeper process of its
 * own (detached: a terminal's Ctrl-C reaches the parent, which stops the
 * cluster when it is ready to).
 */
export function startPostgresKeeper(dir: string, opts: KeeperOptions = {}): Promise<KeptPostgres> {
  const { unref, stdio, ...pgOptions } = opts;
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'keeper.js');
  const out = stdio ?? 'inherit';
  const keeper = fork(script, [path.resolve(dir), JSON.stringify(pgOptions)], { detached: true, stdio: ['ignore', out, out, 'ipc'] });
  const exited = new Promise<void>((resolve) => keeper.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    keeper.once('message', (m: { type: string; url?: string; adminUrl?: string; port?: number; message?: string }) => {
      if (m.type !== 'ready' || !m.url || !m.adminUrl || !m.port) {
        reject(new Error(`embedded PostgreSQL failed to start: ${m.message ?? 'unknown error'}`));
        return;
      }
      if (unref) {
        keeper.unref();
        keeper.channel?.unref();
      }
      resolve({
        url: m.url,
        adminUrl: m.adminUrl,
        port: m.port,
        keeper,
        async stop() {
          if (keeper.exitCode === null && keeper.signalCode === null) {
            // The IPC message takes the keeper's own stop path; SIGTERM if the channel is gone.
            if (keeper.connected) keeper.send({ type: 'stop' });
            else keeper.kill('SIGTERM');
            const t = setTimeout(() => keeper.kill('SIGKILL'), 30_000);
            await exited;
            clearTimeout(t);
          }
        },
      });
    });
    keeper.once('exit', (code) => reject(new Error(`embedded PostgreSQL keeper exited with code ${code} before it was ready`)));
  });
}
