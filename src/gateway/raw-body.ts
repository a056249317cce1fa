import type { IncomingMessage } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * How much of an oversized body is read (and thrown away) before it is answered 413. A client that sends the
 * whole body before it reads the answer (many do, and proxies) would otherwise find the connection reset
 * under it and never see the 413. Beyond this the connection is cut; the request timeout bounds the time.
 */
export const MAX_DISCARDED_BYTES = 16 * 1024 * 1024;

/** A body over the limit: answered 413, after the rest of it was read and thrown away (up to MAX_DISCARDED_BYTES). */
export class BodyTooLargeError extends Error {
  readonly statusCode = 413;
  readonly code = 'FST_ERR_CTP_BODY_TOO_LARGE';

  constructor(readonly limit: number) {
    // Fastify's own wording, as before
    super('Request body is too large');
    this.name = 'BodyTooLargeError';
  }
}

export class BodyLengthMismatchError extends Error {
  readonly statusCode = 400;
  readonly code = 'FST_ERR_CTP_INVALID_CONTENT_LENGTH';

  constructor() {
    super('request body length does not match Content-Length');
    this.name = 'BodyLengthMismatchError';
  }
}

/**
 * The body as text, exactly as sent (channels verify signatures over these bytes). Over `limit`, the rest is
 * read and dropped until the request ends, then the promise rejects with BodyTooLargeError; past `discardLimit`
 * it rejects at once and the connection is closed (Fastify answers errors with `Connection: close`).
 */
export function readBodyWithin(stream: IncomingMessage, limit = MAX_BODY_BYTES, discardLimit = MAX_DISCARDED_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(stream.headers['content-length']);
    const chunks: Buffer[] = [];
    let received = 0;
    let tooLarge = Number.isFinite(declared) && declared > limit;
    const finish = (outcome: () => void) => {
      stream.off('data', onData).off('end', onEnd).off('error', onError);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) tooLarge = true;
      if (tooLarge) {
        chunks.length = 0;
        if (received > limit + discardLimit) {
          finish(() => reject(new BodyTooLargeError(limit)));
          stream.destroy();
        }
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () =>
      finish(() => {
        if (tooLarge) return reject(new BodyTooLargeError(limit));
        if (Number.isFinite(declared) && declared !== received) return reject(new BodyLengthMismatchError());
        resolve(Buffer.concat(chunks, received).toString('utf8'));
      });
    const onError = (error: Error) => finish(() => reject(Object.assign(error, { statusCode: 400 })));
    stream.on('data', onData).on('end', onEnd).on('error', onError);
    stream.resume();
  });
}
