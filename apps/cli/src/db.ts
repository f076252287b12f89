import path from 'node:path';
import type { CommandIo } from './io.js';

/**
 * The database of commands that work on it directly (recovery, key rotation):
 * SVC_DATABASE_URL, else the embedded PostgreSQL `npm start` runs under SVC_DATA_DIR.
 */
export async function openDatabase(io: CommandIo) {
  const { createDb, readEmbeddedConnection } = await import('@svc/db');
  let url = io.env.SVC_DATABASE_URL;
  if (!url) {
    const dataDir = path.resolve(io.cwd, io.env.SVC_DATA_DIR ?? '.svc-data');
    url = readEmbeddedConnection(path.join(dataDir, 'postgres'))?.url;
    if (!url) throw new Error(`SVC_DATABASE_URL is not set and no embedded PostgreSQL is running under ${dataDir} (start it with npm start)`);
  }
  return createDb({ url, poolSize: 2, applicationName: 'svc-cli' });
}
