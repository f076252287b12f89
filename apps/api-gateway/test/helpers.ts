// Builds a real gateway for a test: its own migrated database, a file object
// store in a temp dir, real HTTP on 127.0.0.1:0.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '@svc/config';
import { createDb, Notifier, type Db } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { createTestLogger } from '@svc/logging';
import { applyHttpTimeouts, httpTimeouts } from '@svc/service';
import { createObjectStore, type ObjectStore } from '@svc/storage';
import { buildGateway, type Gateway, type GatewayDeps } from '../src/app.js';
import { GATEWAY_NOTIFIER } from '../src/live/hub.js';

export interface TestGateway {
  url: string;
  /** The gateway itself (its metrics and live hub), for tests that look inside. */
  gateway?: Gateway;
  db: Db;
  tdb?: TestDatabase;
  storage: ObjectStore;
  logs: () => Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startTestGateway(
  opts: {
    env?: Record<string, string>;
    databaseUrl?: string;
    storage?: ObjectStore;
    checkOverrides?: GatewayDeps['checkOverrides'];
    now?: () => Date;
    /** Share another gateway's database (a second instance). */
    shareWith?: TestGateway;
    /** The built UI to serve; default a directory that does not exist (the landing page). */
    uiDir?: string;
  } = {},
): Promise<TestGateway> {
  const tdb = opts.databaseUrl || opts.shareWith ? undefined : await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-gw-'));
  const config = parseConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', ...opts.env });
  const db = createDb({ url: opts.databaseUrl ?? opts.shareWith?.db.url ?? tdb!.url, poolSize: 4 });
  const storage = opts.storage ?? (await createObjectStore(config.storage));
  const { logger, lines } = createTestLogger({ level: 'debug' });
  // The process's notifier, as runService gives it to main.ts.
  const notifier = new Notifier({ url: db.url, log: logger, applicationName: 'svc-api-gateway-listen', ...GATEWAY_NOTIFIER });
  const gateway = buildGateway({
    notifier,
    config,
    log: logger,
    db,
    storage,
    instanceId: 'test-instance',
    version: '9.9.9',
    checkOverrides: opts.checkOverrides,
    now: opts.now,
    uiDir: opts.uiDir ?? path.join(dataDir, 'no-ui'),
  });
  const server = gateway.app.listen(0, '127.0.0.1');
  // As main.ts does: a test client's idle connection must not meet Node's 5 s default.
  applyHttpTimeouts(server, httpTimeouts(config));
  await new Promise<void>((r) => server.once('listening', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    gateway,
    db,
    tdb,
    storage,
    logs: lines,
    async close() {
      await gateway.close();
      await notifier.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await db.close();
      await tdb?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
