import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every open connection and refuses new ones until `restore()` (a network partition). */
  cut(): void;
  restore(): void;
  /** Resets every open connection once (ECONNRESET on whatever is in flight), without refusing new ones. */
  resetConnections(): void;
  close(): Promise<void>;
}

/** A loopback TCP proxy in front of a real service, so a test can take the network away from it. */
export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let refusing = false;
  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const resetAll = () => {
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
  };
  return {
    port,
    cut() {
      refusing = true;
      resetAll();
    },
    restore() {
      refusing = false;
    },
    resetConnections: resetAll,
    close: async () => {
      resetAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
