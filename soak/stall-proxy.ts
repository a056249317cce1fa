import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy of the soak's own between one service process and Redis or PostgreSQL, which can behave as a bad
 * network does: `stall` holds every byte in both directions (and new connections) for a while and then lets it
 * all go in order, so the process is stalled rather than dead; `drop` resets every connection half-way
 * through whatever it was carrying.
 */
export class StallProxy {
  readonly #pairs = new Set<[Socket, Socket]>();
  /** While stalled: what arrived, in order, per destination, and the connections not yet opened upstream. */
  #held: Array<() => void> | undefined;
  #server: Server | undefined;
  port = 0;
  stalls = 0;
  drops = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** Listens on a free port of 127.0.0.1. */
  async start(): Promise<this> {
    const server = createServer((client) => this.#accept(client));
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  /** `url` with its host and port replaced by this proxy's. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString().replace(/\/$/, '');
  }

  #accept(client: Socket): void {
    client.on('error', () => client.destroy());
    const open = () => {
      if (client.destroyed) return;
      const upstream = connect(this.target);
      const pair: [Socket, Socket] = [client, upstream];
      this.#pairs.add(pair);
      const close = () => {
        this.#pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      upstream.on('error', close);
      client.on('error', close);
      upstream.on('close', close);
      client.on('close', close);
      this.#forward(client, upstream);
      this.#forward(upstream, client);
    };
    if (this.#held) {
      client.pause();
      this.#held.push(() => {
        open();
        client.resume();
      });
    } else open();
  }

  #forward(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (this.#held) this.#held.push(() => to.destroyed || to.write(chunk));
      else if (!to.destroyed) to.write(chunk);
    });
  }

  /** Holds all traffic (both ways) and new connections for `ms`, then delivers it in the order it came. */
  async stall(ms: number): Promise<void> {
    this.stalls += 1;
    const held: Array<() => void> = (this.#held ??= []);
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.#held = undefined;
    for (const release of held) release();
  }

  /** Resets every open connection (TCP RST both ways), whatever it was in the middle of. */
  drop(): number {
    this.drops += 1;
    const count = this.#pairs.size;
    for (const [client, upstream] of this.#pairs) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    this.#pairs.clear();
    return count;
  }

  async stop(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}
