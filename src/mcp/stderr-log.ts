import type { Readable } from 'node:stream';
import type { Logger } from '../observability/logger.js';

const MAX_LINE_CHARS = 1_000;
const TAIL_LINES = 10;
const LINES_PER_MINUTE = 60;

/**
 * A stdio server's stderr, line by line, at debug level: at most a line's first 1,000 characters
 * and 60 lines a minute (a chatty or looping server cannot flood the log). The last lines are
 * kept, so that the warning for a server that died can say what it printed.
 */
export class StderrLog {
  #partial = '';
  readonly #tail: string[] = [];
  #windowStart = 0;
  #windowLines = 0;
  #suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  attach(stream: Readable): void {
    this.#partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.#write(chunk));
    stream.on('error', () => {});
  }

  /** The last lines, oldest first. */
  tail(): string[] {
    return [...this.#tail];
  }

  clearTail(): void {
    this.#tail.length = 0;
  }

  #write(chunk: string): void {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    // a line that never ends is cut, so the buffer stays bounded
    if (this.#partial.length > MAX_LINE_CHARS) {
      lines.push(this.#partial);
      this.#partial = '';
    }
    for (const line of lines) this.#line(line.replace(/\r$/, ''));
  }

  #line(raw: string): void {
    if (raw.trim() === '') return;
    const line = raw.length > MAX_LINE_CHARS ? `${raw.slice(0, MAX_LINE_CHARS)}…` : raw;
    this.#tail.push(line);
    if (this.#tail.length > TAIL_LINES) this.#tail.shift();
    const now = this.clock();
    if (now - this.#windowStart >= 60_000) {
      if (this.#suppressed > 0) this.logger.debug({ suppressed: this.#suppressed }, 'MCP server stderr: lines left out of the log');
      this.#windowStart = now;
      this.#windowLines = 0;
      this.#suppressed = 0;
    }
    if (this.#windowLines >= LINES_PER_MINUTE) {
      this.#suppressed += 1;
      return;
    }
    this.#windowLines += 1;
    this.logger.debug({ stderr: line }, 'MCP server stderr');
  }
}
