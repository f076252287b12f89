// A TCP proxy that the fault tests put between a client and a server (a
// runner and the gateway, the service and its object store) and then cut:
//
// - `open`: bytes flow both ways.
// - `blackhole`: a network partition. New connections are accepted and
//   existing ones kept, but no byte is forwarded either way (the sockets are
//   paused, so the bytes wait in the kernel's buffers); the client sees its
//   requests hang. Back to `open`, the held bytes flow on.
// - `refuse`: the server is gone. Every open connection is reset and new ones
//   are reset as soon as they are accepted.
import net from 'node:net';

export type ProxyMode = 'open' | 'blackhole' | 'refuse';

export interface TcpProxy {
  /** The proxy's address, `127.0.0.1:PORT`. */
  host: string;
  port: number;
  mode(): ProxyMode;
  setMode(m: ProxyMode): void;
  /** Connections accepted so far, and those reset by `refuse`. */
  stats(): { accepted: number; reset: number };
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server: net.Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'open';
  const pairs = new Set<Pair>();
  let accepted = 0;
  let reset = 0;

  const kill = (p: Pair) => {
    p.client.resetAndDestroy();
    p.server.resetAndDestroy();
    pairs.delete(p);
  };
  const hold = (p: Pair, on: boolean) => {
    for (const s of [p.client, p.server]) on ? s.pause() : s.resume();
  };

  const srv = net.createServer((client) => {
    accepted++;
    client.on('error', () => undefined);
    if (mode === 'refuse') {
      reset++;
      client.resetAndDestroy();
      return;
    }
    const server = net.connect(target.port, target.host);
    server.on('error', () => undefined);
    const p: Pair = { client, server };
    pairs.add(p);
    client.pipe(server);
    server.pipe(client);
    const end = () => {
      pairs.delete(p);
      client.destroy();
      server.destroy();
    };
    client.on('close', end);
    server.on('close', end);
    if (mode === 'blackhole') hold(p, true);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;

  return {
    host: `127.0.0.1:${port}`,
    port,
    mode: () => mode,
    setMode(m) {
      mode = m;
      for (const p of [...pairs]) {
        if (m === 'refuse') {
          reset++;
          kill(p);
        } else hold(p, m === 'blackhole');
      }
    },
    stats: () => ({ accepted, reset }),
    async close() {
      for (const p of [...pairs]) kill(p);
      await new Promise<void>((r) => srv.close(() => r()));
    },
  };
}
