import { openSocket, readUntilClosed, type RawResponse } from './raw-http.js';

/**
 * A client that sends the headers of a POST at once and then its body one byte every `intervalMs`
 * (or, with `headers: 'trickle'`, the header lines themselves one by one), never finishing. Resolves
 * when the server ends the connection; rejects if it is still open after `giveUpMs`.
 */
export async function trickleRequest(
  port: number,
  options: { path?: string; intervalMs?: number; giveUpMs?: number; headers?: 'at-once' | 'trickle' } = {},
): Promise<RawResponse> {
  const intervalMs = options.intervalMs ?? 500;
  const socket = await openSocket(port);
  const started = Date.now();
  const closed = readUntilClosed(socket, started, options.giveUpMs ?? 15_000);
  const head = [`POST ${options.path ?? '/webhooks/telegram'} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 100000'];
  const pieces = options.headers === 'trickle' ? [...head.map((line) => `${line}\r\n`), ...Array.from({ length: 1_000 }, (_, index) => `X-Slow-${index}: 1\r\n`)] : [`${head.join('\r\n')}\r\n\r\n`, ...Array.from({ length: 100_000 }, () => '{')];
  const timer = setInterval(() => {
    const piece = pieces.shift();
    if (piece === undefined || socket.destroyed) return clearInterval(timer);
    socket.write(piece);
  }, intervalMs);
  socket.write(pieces.shift()!);
  try {
    return await closed;
  } finally {
    clearInterval(timer);
  }
}
