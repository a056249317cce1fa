import { describe, expect, it } from 'vitest';
import { BufferedResponse } from '../../src/core/buffered-response.js';

const RAW_HEADERS = ['Content-Type', 'application/json; charset=utf-8', 'X-Request-Id', 'r1', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2'];

function both(bytes: Uint8Array, status = 200): [Response, Response] {
  const headers = new Headers();
  for (let index = 0; index < RAW_HEADERS.length; index += 2) headers.append(RAW_HEADERS[index]!, RAW_HEADERS[index + 1]!);
  return [
    new BufferedResponse(bytes, { status, statusText: 'Whatever', rawHeaders: RAW_HEADERS, url: 'http://api.test/x' }),
    new Response(bytes.slice() as Uint8Array<ArrayBuffer>, { status, statusText: 'Whatever', headers }),
  ];
}

async function outcome(read: () => Promise<unknown>): Promise<unknown> {
  try {
    const value = await read();
    return { value: value instanceof ArrayBuffer ? [...new Uint8Array(value)] : value instanceof Uint8Array ? [...value] : value };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

const BODIES: Record<string, Uint8Array> = {
  'JSON': Buffer.from(JSON.stringify({ ok: true, result: { text: 'héllo 👋' } })),
  'JSON after a byte order mark': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"bom":1}')]),
  'bytes that are not UTF-8': Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
  'an empty body': Buffer.alloc(0),
  'a slice of a larger buffer': Buffer.from('xx{"inner":true}yy').subarray(2, 16),
};

describe('BufferedResponse: a fetch Response over bytes already read', () => {
  for (const [name, bytes] of Object.entries(BODIES)) {
    it(`reads ${name} exactly as the platform's Response does, through every reader`, async () => {
      for (const reader of ['json', 'text', 'arrayBuffer', 'bytes'] as const) {
        const [ours, platform] = both(bytes);
        expect(await outcome(() => ours[reader]()), reader).toEqual(await outcome(() => platform[reader]()));
        expect(ours.bodyUsed).toBe(true);
        // a body is read once, whichever reader comes second
        expect(await outcome(() => ours.text())).toEqual(await outcome(() => platform.text()));
      }
    });
  }

  it('gives status, ok, url and the headers (repeated ones joined, Set-Cookie kept apart) like the platform', () => {
    for (const status of [200, 201, 299, 300, 404, 500]) {
      const [ours, platform] = both(BODIES.JSON!, status);
      expect([ours.status, ours.ok, ours.statusText, ours.redirected]).toEqual([platform.status, platform.ok, platform.statusText, platform.redirected]);
    }
    // what fetch gives for an answer from the network (a constructed Response says "default")
    expect(both(BODIES.JSON!)[0].type).toBe('basic');
    const [ours, platform] = both(BODIES.JSON!);
    expect(ours.url).toBe('http://api.test/x');
    expect([...ours.headers]).toEqual([...platform.headers]);
    expect(ours.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(ours.headers).toBe(ours.headers);
  });

  it('streams its body, makes a blob and a clone, and keeps "read once" across the platform readers', async () => {
    const [streamed] = both(BODIES.JSON!);
    expect(streamed.bodyUsed).toBe(false);
    const chunks: Uint8Array[] = [];
    for await (const chunk of streamed.body!) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe(Buffer.from(BODIES.JSON!).toString());
    expect(streamed.bodyUsed).toBe(true);
    await expect(streamed.json()).rejects.toThrow(TypeError);

    const [blobbed, platformBlobbed] = both(BODIES.JSON!);
    const blob = await blobbed.blob();
    expect(blob.type).toBe((await platformBlobbed.blob()).type);
    expect(await blob.text()).toBe(Buffer.from(BODIES.JSON!).toString());
    await expect(blobbed.arrayBuffer()).rejects.toThrow(TypeError);

    const [original] = both(BODIES.JSON!);
    const copy = original.clone();
    expect(await original.json()).toEqual(await copy.json());
    expect(() => original.clone()).toThrow(TypeError);

    // read fast first, then asked for its stream: the stream is already used, as the platform's would be
    const [read, platformRead] = both(BODIES.JSON!);
    await read.text();
    await platformRead.text();
    expect(read.body).not.toBeNull();
    expect([read.bodyUsed, read.body!.locked]).toEqual([platformRead.bodyUsed, platformRead.body!.locked]);
    const readAgain = await outcome(async () => read.body!.getReader().read());
    expect(readAgain).toEqual(await outcome(async () => platformRead.body!.getReader().read()));
    expect(readAgain).toEqual({ error: 'TypeError' });
  });

  it('gives copies: a reader cannot change the bytes another response shares', async () => {
    const bytes = Buffer.from('{"a":1}');
    const [ours] = both(bytes);
    const copy = ours.clone();
    const read = await ours.bytes();
    read.fill(0);
    expect(await copy.json()).toEqual({ a: 1 });
  });
});
