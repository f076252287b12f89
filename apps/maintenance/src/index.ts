export { startLeaseKeeper, MAINTENANCE_LEASE, LEASE_TTL_MS, LEASE_TICK_MS, type LeaseKeeper } from './lease-keeper.js';
export { startWatchdog, watchdogOnce, WATCHDOG_MS } from './watchdog-loop.js';
