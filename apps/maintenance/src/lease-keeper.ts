// Keeps the `maintenance` lease: tries to take it on a short period, renews it
// while held, and gives it up on stop so another instance takes over at once.
// A holder that dies stops renewing; its lease expires after LEASE_TTL_MS and
// the next attempt of another instance takes it: well within a minute.
import { acquireLease, releaseLease, type Db } from '@svc/db';
import type { Logger } from '@svc/logging';
import type { DbContact } from './db-contact.js';

export const MAINTENANCE_LEASE = 'maintenance';
/** How long a lease lasts without renewal. */
export const LEASE_TTL_MS = 30_000;
/** How often holders renew and others try to take over. */
export const LEASE_TICK_MS = 5_000;

export interface LeaseKeeperOptions {
  db: Db;
  log: Logger;
  holderId: string;
  /** A test's clock. Default: the database's (every holder judges expiry by the same clock). */
  now?: () => Date;
  /** Told whether each tick reached the database. */
  contact?: DbContact;
  /** Called once each time the lease is taken (not on renewals). */
  onAcquired?: () => void;
  /** Called when a held lease is lost (expired while we paused). */
  onLost?: () => void;
  /** How long the lease lasts without renewal. Default {@link LEASE_TTL_MS} (30 s). */
  ttlMs?: number;
  /** How often to take or renew it. Default {@link LEASE_TICK_MS} (5 s). */
  tickMs?: number;
}

export interface LeaseKeeper {
  isHolder(): boolean;
  /** One attempt now: take or renew. Exposed for tests. */
  tick(): Promise<boolean>;
  stop(): Promise<void>;
}

export function startLeaseKeeper(opts: LeaseKeeperOptions): LeaseKeeper {
  const ttl = opts.ttlMs ?? LEASE_TTL_MS;
  let held = false;
  let stopped = false;
  let running: Promise<boolean> = Promise.resolve(false);

  const tick = () => {
    running = (async () => {
      if (stopped) return held;
      try {
        const now = await acquireLease(opts.db.pool, MAINTENANCE_LEASE, opts.holderId, ttl, opts.now?.());
        opts.contact?.ok();
        if (now && !held) {
          opts.log.info('maintenance lease acquired', { holder_id: opts.holderId });
          held = true;
          opts.onAcquired?.();
        } else if (!now && held) {
          opts.log.warn('maintenance lease lost', { holder_id: opts.holderId });
          held = false;
          opts.onLost?.();
        }
      } catch (err) {
        opts.contact?.failed();
        opts.log.warn('maintenance lease attempt failed', { err });
      }
      return held;
    })();
    return running;
  };

  void tick();
  const timer = setInterval(() => void tick(), opts.tickMs ?? LEASE_TICK_MS);
  timer.unref();

  return {
    isHolder: () => held,
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      if (held) {
        await releaseLease(opts.db.pool, MAINTENANCE_LEASE, opts.holderId);
        held = false;
        opts.log.info('maintenance lease released', { holder_id: opts.holderId });
      }
    },
  };
}
