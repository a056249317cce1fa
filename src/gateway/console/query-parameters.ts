import { Type, type Static } from '@sinclair/typebox';

/**
 * Query strings, validated by Fastify (ajv, with numbers coerced): a bad value is a 400 naming the
 * parameter, e.g. `querystring/limit must be <= 200`.
 */
export const MAX_SEARCH_LENGTH = 200;

export const SessionsQuerySchema = Type.Object({
  q: Type.Optional(Type.String({ maxLength: MAX_SEARCH_LENGTH })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
export type SessionsQueryParameters = Static<typeof SessionsQuerySchema>;

export const TranscriptQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,15})$' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
});
export type TranscriptQueryParameters = Static<typeof TranscriptQuerySchema>;

export const SessionKeySchema = Type.Object({ key: Type.String({ minLength: 1, maxLength: 1000 }) });
export type SessionKeyParameters = Static<typeof SessionKeySchema>;

export const UsageQuerySchema = Type.Object({
  from: Type.Optional(Type.String({ format: 'date' })),
  to: Type.Optional(Type.String({ format: 'date' })),
});
export type UsageQueryParameters = Static<typeof UsageQuerySchema>;

export const PairingsQuerySchema = Type.Object({ approved: Type.Optional(Type.String({ maxLength: 64 })) });
export type PairingsQueryParameters = Static<typeof PairingsQuerySchema>;

/** A client error with its status, answered by the console's error handler. */
export class ConsoleRequestError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.statusCode = statusCode;
  }
}
