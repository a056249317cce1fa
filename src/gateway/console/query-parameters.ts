import { Type, type Static } from '@sinclair/typebox';

/**
 * Query strings, validated by Fastify (ajv, with numbers coerced): a bad value is a 400 naming the
 * parameter, e.g. `querystring/limit must be <= 200`.
 */
export const MAX_SEARCH_LENGTH = 200;

export const SessionsQuerySchema = Type.Object({
  q: Type.Optional(Type.String({ maxLength: MAX_SEARCH_LENGTH })),
  /** `<channel>:<userId>`: that user's direct messages (a budget's user id). */
  user: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  /** `<channel>:<accountId>:<chatId>`: that chat's sessions (a budget's chat id). */
  chat: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
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

export const BudgetsQuerySchema = Type.Object({
  q: Type.Optional(Type.String({ maxLength: MAX_SEARCH_LENGTH })),
  scope: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('chat'), Type.Literal('agent'), Type.Literal('')])),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 25 })),
  saved: Type.Optional(Type.String({ maxLength: 8 })),
});
export type BudgetsQueryParameters = Static<typeof BudgetsQuerySchema>;

export const SchedulesQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  /** Chats per page. */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  cancelled: Type.Optional(Type.String({ maxLength: 64 })),
});
export type SchedulesQueryParameters = Static<typeof SchedulesQuerySchema>;

export const ApprovalsQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  denied: Type.Optional(Type.String({ maxLength: 64 })),
});
export type ApprovalsQueryParameters = Static<typeof ApprovalsQuerySchema>;

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
