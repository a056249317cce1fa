import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running reverse proxy in front of one upstream port. */
export interface ForwardingProxy {
  port: number;
  close(): Promise<void>;
}

/**
 * A reverse proxy as nginx (`proxy_add_x_forwarded_for`) or an ingress forwards: the request as it came, with the
 * connection's address appended to whatever X-Forwarded-For the client sent, to `upstreamPort` on 127.0.0.1 from
 * `localAddress` (the proxy's own address as the upstream sees it).
 */
export async function startForwardingProxy(upstreamPort: number, localAddress = '127.0.0.1'): Promise<ForwardingProxy> {
  const server: Server = createServer((incoming, outgoing) => {
    const client = incoming.socket.remoteAddress ?? '';
    const sent = incoming.headers['x-forwarded-for'];
    const forwardedFor = [...(Array.isArray(sent) ? sent : sent ? [sent] : []), client].join(', ');
    const headers: IncomingHttpHeaders = { ...incoming.headers, 'x-forwarded-for': forwardedFor };
    const upstream = request({ host: '127.0.0.1', port: upstreamPort, localAddress, method: incoming.method, path: incoming.url, headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    upstream.on('error', () => {
      outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
