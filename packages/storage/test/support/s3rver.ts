import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/** s3rver's fixed credentials: it checks request signatures against them. */
export const S3RVER_KEY = 'S3RVER';

export interface RunningS3rver {
  port: number;
  stop(): Promise<void>;
}

/** A real S3-compatible server in this process on 127.0.0.1 with a random port and its own temp directory. */
export async function startS3rver(): Promise<RunningS3rver> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'svc-storage-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  return {
    port,
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
