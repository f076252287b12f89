// The api-gateway process: HTTP on SVC_HOST:SVC_PORT.
import type { AddressInfo } from 'node:net';
import { applyHttpTimeouts, httpTimeouts, runService } from '@svc/service';
import { bootstrapAdmin } from '@svc/identity';
import { createObjectStore } from '@svc/storage';
import { buildGateway } from './app.js';
import { GATEWAY_NOTIFIER } from './live/hub.js';

await runService({
  kind: 'api-gateway',
  // The streams are what listens here: a gateway nobody watches holds no LISTEN connection.
  notifier: GATEWAY_NOTIFIER,
  async start(ctx) {
    // First start with SVC_ADMIN_EMAIL/SVC_ADMIN_PASSWORD and no user yet: create that admin.
    if (ctx.config.adminEmail && ctx.config.adminPassword) {
      const created = await bootstrapAdmin(ctx.db.pool, { email: ctx.config.adminEmail, password: ctx.config.adminPassword }, ctx.clock.now());
      if (created) ctx.log.info('bootstrap admin created', { email: created.email });
    }
    const storage = await createObjectStore(ctx.config.storage);
    const gateway = buildGateway({ ...ctx, storage });
    const { app } = gateway;
    const server = app.listen(ctx.config.port, ctx.config.host);
    // Longer than a load balancer's idle timeout (SVC_HTTP_KEEPALIVE_TIMEOUT), so it never reuses a connection being closed.
    applyHttpTimeouts(server, httpTimeouts(ctx.config));
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    const { address, port } = server.address() as AddressInfo;
    ctx.log.info('listening', { url: `http://${address}:${port}` });
    return {
      async stop() {
        // SVC_SHUTDOWN_DRAIN: fail /readyz/traffic first and keep serving, so the load balancer moves new requests
        // elsewhere before this instance stops accepting them (docs/operating/upgrades.md).
        if (ctx.config.shutdownDrainMs > 0) {
          gateway.drain();
          ctx.log.info('draining', { drain_ms: ctx.config.shutdownDrainMs });
          await new Promise((r) => setTimeout(r, ctx.config.shutdownDrainMs));
        }
        // Stop accepting, let in-flight requests finish, drop idle keep-alives.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Event streams stay open until their execution ends: end them (clients resume elsewhere with Last-Event-ID).
        await gateway.close();
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 10_000);
        await closed;
        clearTimeout(force);
        await storage.close?.();
      },
    };
  },
});
