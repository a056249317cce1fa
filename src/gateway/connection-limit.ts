import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Caps the connections one remote address holds at once: a connection over the cap is destroyed as
 * it arrives, before a byte is read. Hand-written because the maintained Fastify plugins limit
 * requests per time window (@fastify/rate-limit), not concurrent connections, and run only after a
 * request has been read. `onRefused` is told about each refused connection.
 */
export function limitConnectionsPerAddress(server: Server, max: number, onRefused: (address: string) => void = () => {}): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = addressOf(socket);
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      onRefused(address);
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/** IPv4 clients of a dual-stack listener arrive as `::ffff:a.b.c.d`; they are the same client as `a.b.c.d`. */
function addressOf(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
