export interface ServerSentEvent {
  /** The `event:` field, when the server named the event. */
  event: string | undefined;
  /** The `data:` lines, joined with `\n`. */
  data: string;
}

/**
 * The events of a `text/event-stream` body, parsed by the HTML standard's rules (a leading byte order mark is
 * dropped; lines end in CRLF, LF or CR; a blank line ends an event; `:` starts a comment; one space after a
 * field's colon is dropped; an event without data is not dispatched; an unfinished event at the end of the
 * stream is dropped). Fed text as it arrives, it returns the events each piece completes, synchronously: a read
 * of the socket costs one call, not one promise per event. `id` and `retry` are read past: we never reconnect
 * a model stream.
 */
export class ServerSentEventParser {
  private pending = '';
  private data: string[] = [];
  private event: string | undefined;
  /** A byte order mark opening the stream is dropped. */
  private atStart = true;

  push(text: string): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    let buffer = this.pending + text;
    if (this.atStart && buffer !== '') {
      this.atStart = false;
      if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
    }
    // a CR at the very end may be the first half of a CRLF: it waits for the next piece
    const end = buffer.charCodeAt(buffer.length - 1) === 13 ? buffer.length - 1 : buffer.length;
    let start = 0;
    // where the next LF and CR are (-1: none before `end`), each searched again only once passed
    let newline = -2;
    let carriage = -2;
    while (start < end) {
      if (newline !== -1 && newline < start) newline = lineBreakAt(buffer, '\n', start, end);
      if (carriage !== -1 && carriage < start) carriage = lineBreakAt(buffer, '\r', start, end);
      let lineEnd: number;
      let next: number;
      if (carriage >= 0 && (newline < 0 || carriage < newline)) {
        lineEnd = carriage;
        next = carriage + 1 === newline ? carriage + 2 : carriage + 1;
      } else if (newline >= 0) {
        lineEnd = newline;
        next = newline + 1;
      } else {
        break;
      }
      this.line(buffer.slice(start, lineEnd), events);
      start = next;
    }
    this.pending = start === 0 ? buffer : buffer.slice(start);
    return events;
  }

  private line(line: string, events: ServerSentEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push({ event: this.event, data: this.data.join('\n') });
      this.data = [];
      this.event = undefined;
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }
}

function lineBreakAt(buffer: string, character: string, from: number, end: number): number {
  const at = buffer.indexOf(character, from);
  return at >= 0 && at < end ? at : -1;
}
