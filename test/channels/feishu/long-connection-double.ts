import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

/** The little of the `ws` package (the SDK's own WebSocket library, untyped here) this double uses. */
interface WebSocket {
  readonly readyState: number;
  readonly OPEN: number;
  on(event: 'message', listener: (data: Buffer) => void): void;
  send(data: Buffer): void;
  terminate(): void;
}
interface WebSocketServer {
  once(event: 'listening', listener: () => void): void;
  on(event: 'connection', listener: (socket: WebSocket) => void): void;
  address(): AddressInfo | string | null;
  close(callback: () => void): void;
}
const { WebSocketServer } = createRequire(import.meta.url)('ws') as { WebSocketServer: new (options: { host: string; port: number }) => WebSocketServer };

/**
 * The far end of Feishu's long connection, for the SDK's WSClient: a WebSocket server speaking its
 * protobuf frames (pbbp2.Frame: SeqID=1, LogID=2, service=3, method=4 (0 control, 1 data),
 * headers=5 {key=1, value=2}, payloadEncoding=6, payloadType=7, payload=8, LogIDNew=9).
 * `pushEvent` sends one event frame and resolves with the client's acknowledgement (`{code: 200}`).
 */
export async function startLongConnectionDouble() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const sockets: WebSocket[] = [];
  /**
   * Sockets whose client has sent its first frame (the ping WSClient sends on open). The SDK attaches its
   * message listener only after its connect promise settles, so a frame pushed the instant the server sees
   * the socket open can be dropped; after the client's first ping it is listening.
   */
  const ready = new Set<WebSocket>();
  const acknowledgements = new Map<string, (payload: { code: number }) => void>();
  let connections = 0;

  server.on('connection', (socket) => {
    connections += 1;
    sockets.push(socket);
    socket.on('message', (data: Buffer) => {
      ready.add(socket);
      const frame = decodeFrame(new Uint8Array(data));
      const messageId = frame.headers.message_id;
      if (frame.headers.type !== 'event' || messageId === undefined) return;
      acknowledgements.get(messageId)?.(JSON.parse(Buffer.from(frame.payload).toString('utf8')) as { code: number });
      acknowledgements.delete(messageId);
    });
  });

  return {
    /** Put this in the Open API double's `/callback/ws/endpoint` answer; the SDK reads device_id and service_id from it. */
    url: `ws://127.0.0.1:${port}/ws?fpid=1&device_id=double-device&service_id=7`,
    get connections() {
      return connections;
    },
    async waitForConnection(timeoutMs = 5000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (sockets.every((socket) => socket.readyState !== socket.OPEN || !ready.has(socket))) {
        if (Date.now() > deadline) throw new Error('no long connection within the time');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    pushEvent(envelope: unknown, timeoutMs = 5000): Promise<{ code: number }> {
      const socket = sockets.find((candidate) => candidate.readyState === candidate.OPEN && ready.has(candidate));
      if (socket === undefined) return Promise.reject(new Error('no open long connection'));
      const messageId = randomUUID();
      const frame = encodeFrame({
        service: 7,
        method: 1,
        headers: { type: 'event', message_id: messageId, sum: '1', seq: '0', trace_id: randomUUID() },
        payload: Buffer.from(JSON.stringify(envelope), 'utf8'),
      });
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('event not acknowledged')), timeoutMs);
        acknowledgements.set(messageId, (payload) => {
          clearTimeout(timer);
          resolve(payload);
        });
        socket.send(frame);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.terminate();
        server.close(() => resolve());
      }),
  };
}

interface Frame {
  service: number;
  method: number;
  headers: Record<string, string>;
  payload: Uint8Array;
}

function encodeFrame(frame: Frame): Buffer {
  const parts: Buffer[] = [varintField(1, 0), varintField(2, 0), varintField(3, frame.service), varintField(4, frame.method)];
  for (const [key, value] of Object.entries(frame.headers)) {
    parts.push(bytesField(5, Buffer.concat([bytesField(1, Buffer.from(key)), bytesField(2, Buffer.from(value))])));
  }
  parts.push(bytesField(8, Buffer.from(frame.payload)));
  return Buffer.concat(parts);
}

function decodeFrame(bytes: Uint8Array): Frame {
  const frame: Frame = { service: 0, method: 0, headers: {}, payload: new Uint8Array() };
  for (const { field, value } of readFields(bytes)) {
    if (field === 3 && typeof value === 'number') frame.service = value;
    if (field === 4 && typeof value === 'number') frame.method = value;
    if (field === 8 && value instanceof Uint8Array) frame.payload = value;
    if (field === 5 && value instanceof Uint8Array) {
      const header = Object.fromEntries(readFields(value).map((entry) => [entry.field, Buffer.from(entry.value as Uint8Array).toString('utf8')]));
      if (header[1] !== undefined) frame.headers[header[1]] = header[2] ?? '';
    }
  }
  return frame;
}

function readFields(bytes: Uint8Array): Array<{ field: number; value: number | Uint8Array }> {
  const fields: Array<{ field: number; value: number | Uint8Array }> = [];
  let offset = 0;
  const varint = (): number => {
    let result = 0;
    let multiplier = 1;
    for (;;) {
      const byte = bytes[offset++] as number;
      result += (byte & 0x7f) * multiplier;
      if (byte < 0x80) return result;
      multiplier *= 128;
    }
  };
  while (offset < bytes.length) {
    const tag = varint();
    if ((tag & 7) === 0) fields.push({ field: tag >>> 3, value: varint() });
    else {
      const length = varint();
      fields.push({ field: tag >>> 3, value: bytes.subarray(offset, offset + length) });
      offset += length;
    }
  }
  return fields;
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

function varintField(field: number, value: number): Buffer {
  return Buffer.concat([varint(field << 3), varint(value)]);
}

function bytesField(field: number, value: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(value.length), value]);
}
