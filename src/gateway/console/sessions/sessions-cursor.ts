import type { SessionsCursor } from '../../../store/index.js';
import { ConsoleRequestError } from '../query-parameters.js';

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opaque to clients: base64url of `<last activity, microseconds UTC>|<session id>`. */
export function encodeSessionsCursor(cursor: SessionsCursor): string {
  return Buffer.from(`${cursor.lastActivityAt}|${cursor.id}`, 'utf8').toString('base64url');
}

export function decodeSessionsCursor(text: string | undefined): SessionsCursor | undefined {
  if (text === undefined) return undefined;
  const [lastActivityAt = '', id = '', ...rest] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !TIME.test(lastActivityAt) || !UUID.test(id) || Number.isNaN(Date.parse(lastActivityAt))) {
    throw new ConsoleRequestError(400, 'cursor: not a cursor this API returned (use nextCursor from the previous page)');
  }
  return { lastActivityAt, id };
}
