import path from 'node:path';
import { CliError, type CommandIo } from './io.js';

/**
 * The database of commands that work on it directly (recovery, key rotation):
 * SVC_DATABASE_URL, else the embedded PostgreSQL `npm start` runs under SVC_DATA_DIR.
 */
export async function openDatabase(io: CommandIo) {
  const { createDb, readEmbeddedConnection } = await import('@svc/db');
  let url = await serverVariable(io, 'SVC_DATABASE_URL');
  if (!url) {
    const dataDir = path.resolve(io.cwd, io.env.SVC_DATA_DIR ?? '.svc-data');
    url = readEmbeddedConnection(path.join(dataDir, 'postgres'))?.url;
    if (!url) throw new Error(`SVC_DATABASE_URL is not set and no embedded PostgreSQL is running under ${dataDir} (start it with npm start)`);
  }
  return createDb({ url, poolSize: 2, applicationName: 'svc-cli' });
}

/**
 * A server variable holding a credential, as the services read it: `X`, else
 * the file `X_FILE` names. Both set or an unreadable file exits 2, as a
 * service's bad configuration does.
 */
export async function serverVariable(io: CommandIo, name: 'SVC_DATABASE_URL' | 'SVC_MASTER_KEYS'): Promise<string | undefined> {
  const { ConfigError, readVariable } = await import('@svc/config');
  try {
    return readVariable(io.env, name);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
}
