import { connect, type Socket } from 'node:net';

/** What came back on a raw connection: the parsed status line and headers, the body bytes as text, or nothing. */
export interface RawResponse {
  /** Undefined when the server closed the connection without answering. */
  status: number | undefined;
  head: string;
  body: string;
  /** Milliseconds from the first byte sent until the connection ended. */
  elapsedMs: number;
}

export interface RawOptions {
  /** Source address (any of 127.0.0.0/8 works on Linux), to act as another client. */
  localAddress?: string;
  timeoutMs?: number;
}

/**
 * Sends a request line exactly as written, over node:net, so that no client library normalizes the
 * target (`%61dmin`, `/./`, `//`, absolute-form). The request asks for `Connection: close`; the
 * response is whatever arrives until the server closes.
 */
export async function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  options: RawOptions = {},
): Promise<RawResponse> {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (method !== 'GET' && method !== 'HEAD' && !('Content-Length' in headers)) lines.push('Content-Length: 0');
  const socket = await openSocket(port, options.localAddress);
  const started = Date.now();
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  return readUntilClosed(socket, started, options.timeoutMs ?? 10_000);
}

export function openSocket(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Collects everything the server sends until it closes (or resets) the connection. */
export function readUntilClosed(socket: Socket, started: number, timeoutMs: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connection still open after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {}); // a reset ends the connection like a close does
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks).toString('latin1'), Date.now() - started));
    });
  });
}

function parse(text: string, elapsedMs: number): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  return { status: match ? Number(match[1]) : undefined, head, body: end === -1 ? '' : text.slice(end + 4), elapsedMs };
}

/** A keep-alive request on an already open socket; resolves with the status of the first response. */
export function requestOnSocket(socket: Socket, target: string, timeoutMs = 5_000): Promise<number | undefined> {
  return new Promise((resolve) => {
    let received = '';
    const finish = (status: number | undefined) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(status);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      if (match && received.includes('\r\n\r\n')) finish(Number(match[1]));
    };
    const onClose = () => finish(undefined);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.on('error', () => {});
    socket.write(`GET ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  });
}
