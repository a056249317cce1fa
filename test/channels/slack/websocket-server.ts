import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const TEXT = 0x1;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;

/**
 * Just enough of a WebSocket server (RFC 6455: handshake, unfragmented text frames, ping/pong, close) to play
 * Slack's Socket Mode endpoint: it says `hello` on connect, sends envelopes, and records what the client sends.
 */
export async function startSocketModeServer() {
  const received: Array<Record<string, unknown>> = [];
  const sockets = new Set<Duplex>();
  const server = createServer((_request, response) => response.writeHead(426).end());

  server.on('upgrade', (request: IncomingMessage, socket: Duplex) => {
    const key = request.headers['sec-websocket-key'];
    if (typeof key !== 'string') return socket.destroy();
    const accept = createHash('sha1').update(key + HANDSHAKE_GUID).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let frame = readFrame(buffered); frame !== undefined; frame = readFrame(buffered)) {
        buffered = buffered.subarray(frame.length);
        if (frame.opcode === TEXT) received.push(JSON.parse(frame.payload.toString('utf8')) as Record<string, unknown>);
        else if (frame.opcode === PING) socket.write(encodeFrame(PONG, frame.payload));
        else if (frame.opcode === CLOSE) {
          socket.end(encodeFrame(CLOSE, frame.payload));
          sockets.delete(socket);
        }
      }
    });
    socket.write(encodeFrame(TEXT, Buffer.from(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A0APP001' } }))));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `ws://127.0.0.1:${port}/link`,
    received,
    get connections() {
      return sockets.size;
    },
    /** Sends a Socket Mode envelope to every connected client. */
    send(envelope: Record<string, unknown>): void {
      for (const socket of sockets) socket.write(encodeFrame(TEXT, Buffer.from(JSON.stringify(envelope))));
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x80 | opcode, length]) : Buffer.alloc(length < 65_536 ? 4 : 10);
  if (length >= 126 && length < 65_536) {
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else if (length >= 65_536) {
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

/** One client frame (always masked), or undefined until it has fully arrived. */
function readFrame(buffer: Buffer): { opcode: number; payload: Buffer; length: number } | undefined {
  if (buffer.length < 2) return undefined;
  const opcode = (buffer[0] as number) & 0x0f;
  const masked = ((buffer[1] as number) & 0x80) !== 0;
  let length = (buffer[1] as number) & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  const maskLength = masked ? 4 : 0;
  if (buffer.length < offset + maskLength + length) return undefined;
  const mask = buffer.subarray(offset, offset + maskLength);
  const payload = Buffer.from(buffer.subarray(offset + maskLength, offset + maskLength + length));
  if (masked) for (let index = 0; index < payload.length; index += 1) payload[index] = (payload[index] as number) ^ (mask[index % 4] as number);
  return { opcode, payload, length: offset + maskLength + length };
}
