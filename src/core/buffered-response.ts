/**
 * A fetch `Response` over an answer already read whole into bytes, for `httpFetch`'s JSON answers. The platform's
 * `Response` reads even in-memory bytes through a web stream: building one and calling `json()` costs about 50 µs
 * of CPU against 2 µs for the parse itself, and a Telegram message makes two such calls (the typing action and the
 * send). Here `json()`, `text()`, `arrayBuffer()` and `bytes()` read the bytes directly, and the headers are built
 * on first use. Anything else (`body`, `blob()`, `formData()`) hands the answer to a platform `Response`, made once,
 * which from then on serves every read so that "a body is read once" holds across both.
 */
export class BufferedResponse implements Response {
  readonly type = 'basic' as const;
  readonly redirected = false;
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  readonly #bytes: Uint8Array;
  readonly #rawHeaders: readonly string[];
  #headers: Headers | undefined;
  #used = false;
  #platform: Response | undefined;

  constructor(bytes: Uint8Array, init: { status: number; statusText: string; rawHeaders: readonly string[]; url: string }) {
    this.#bytes = bytes;
    this.status = init.status;
    this.statusText = init.statusText;
    this.#rawHeaders = init.rawHeaders;
    this.url = init.url;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get headers(): Headers {
    this.#headers ??= headersOf(this.#rawHeaders);
    return this.#headers;
  }

  get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    return this.#asPlatform().body;
  }

  get bodyUsed(): boolean {
    return this.#platform ? this.#platform.bodyUsed : this.#used;
  }

  async json(): Promise<unknown> {
    if (this.#platform) return this.#platform.json();
    return JSON.parse(this.#takeText()) as unknown;
  }

  async text(): Promise<string> {
    if (this.#platform) return this.#platform.text();
    return this.#takeText();
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#platform) return this.#platform.arrayBuffer();
    return this.#takeCopy().buffer;
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#platform) return this.#platform.bytes() as Promise<Uint8Array<ArrayBuffer>>;
    return this.#takeCopy();
  }

  blob(): Promise<Blob> {
    return this.#asPlatform().blob();
  }

  formData(): Promise<FormData> {
    return this.#asPlatform().formData();
  }

  clone(): Response {
    if (this.#platform) return this.#platform.clone();
    if (this.#used) throw new TypeError('Response.clone: Body has already been consumed.');
    return new BufferedResponse(this.#bytes, { status: this.status, statusText: this.statusText, rawHeaders: this.#rawHeaders, url: this.url });
  }

  #take(): Uint8Array {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.#bytes;
  }

  /** UTF-8 as the fetch standard decodes it: a leading byte order mark is dropped. */
  #takeText(): string {
    const bytes = this.#take();
    const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    return Buffer.from(bytes.buffer, bytes.byteOffset + start, bytes.byteLength - start).toString('utf8');
  }

  #takeCopy(): Uint8Array<ArrayBuffer> {
    const bytes = this.#take();
    const copy = new Uint8Array(bytes.byteLength);
    copy.set(bytes);
    return copy;
  }

  #asPlatform(): Response {
    if (!this.#platform) {
      const platform = new Response(this.#bytes as Uint8Array<ArrayBuffer>, { status: this.status, statusText: this.statusText, headers: this.headers });
      // read here already: the platform's body is then as used as this one
      if (this.#used) void platform.arrayBuffer();
      this.#platform = platform;
    }
    return this.#platform;
  }
}

/** Node's raw header list (`[name, value, name, value, …]`, repeats kept) as fetch `Headers`. */
export function headersOf(rawHeaders: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index < rawHeaders.length; index += 2) headers.append(rawHeaders[index]!, rawHeaders[index + 1]!);
  return headers;
}
