import fs from 'node:fs';
import path from 'node:path';

/** What a running embedded cluster publishes for other processes (the CLI's `user` commands). */
export interface EmbeddedConnectionInfo {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  pid: number;
  url: string;
}

/** Written next to the cluster's data while it runs. */
export const EMBEDDED_INFO_FILE = 'connection.json';

/** Reads the connection file a running embedded cluster wrote under `dir`, if the cluster looks alive. */
export function readEmbeddedConnection(dir: string): EmbeddedConnectionInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(path.join(dir, EMBEDDED_INFO_FILE), 'utf8')) as EmbeddedConnectionInfo;
    return info;
  } catch {
    return null;
  }
}
