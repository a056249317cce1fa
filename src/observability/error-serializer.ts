/**
 * pino's `err` serializer, without the bulk that library errors carry: postgres.js puts the statement,
 * its parameters and the call's arguments on its errors (`query`, `parameters`, `args`, `types`),
 * drizzle repeats the statement and every parameter in `query`, `params` and its message, axios (the
 * Lark SDK) keeps the whole request and response. For a failed turn flush that is the whole
 * conversation. Those fields are logged as sizes; message, code, stack and the other small fields stay,
 * and causes are followed (their messages and stacks joined as pino does, their fields under `cause`).
 */

/** Fields that hold statements, parameters, payloads or whole requests: never logged, only measured. */
const BULK_FIELDS = new Set(['query', 'parameters', 'params', 'args', 'types', 'payload', 'body', 'data', 'config', 'request', 'response']);
const MAX_MESSAGE_CHARS = 1_000;
const MAX_FIELD_CHARS = 500;
const MAX_STACK_CHARS = 4_000;
const MAX_DEPTH = 5;

interface ErrorLike {
  message: string;
  stack?: string;
  name?: string;
  cause?: unknown;
  [field: string]: unknown;
}

export interface Size {
  count?: number;
  chars?: number;
}

export interface SerializedError {
  type: string;
  message: string;
  stack?: string;
  omitted?: Record<string, Size>;
  cause?: Record<string, unknown>;
  [field: string]: unknown;
}

export function serializeError(value: unknown): unknown {
  if (!isErrorLike(value)) return value;
  const chain = causeChain(value);
  const serialized: SerializedError = {
    ...fieldsOf(value, new Set(chain), 0),
    type: typeOf(value),
    message: chain.map((error) => messageOf(error)).join(': '),
  };
  const stacks = chain.map(stackOf).filter((stack) => stack !== undefined);
  if (stacks.length > 0) serialized.stack = stacks.join('\ncaused by: ');
  return serialized;
}

function causeChain(error: ErrorLike): ErrorLike[] {
  const chain = [error];
  for (let current = error.cause; isErrorLike(current) && !chain.includes(current) && chain.length < MAX_DEPTH; current = current.cause) chain.push(current);
  return chain;
}

/** Own and inherited enumerable fields, bulk ones measured instead of copied; the cause's fields nested under `cause`. */
function fieldsOf(error: ErrorLike, seen: Set<unknown>, depth: number): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const omitted: Record<string, Size> = {};
  for (const key in error) {
    if (key === 'message' || key === 'stack' || key === 'cause') continue;
    const value = error[key];
    if (value === undefined || typeof value === 'function') continue;
    if (BULK_FIELDS.has(key) || (key === 'detail' && typeof value === 'string' && value.startsWith('Failing row contains'))) {
      omitted[key] = sizeOf(value);
    } else if (isErrorLike(value)) {
      if (!seen.has(value) && depth < MAX_DEPTH) fields[key] = serializeError(value);
    } else if (typeof value === 'string') {
      fields[key] = cut(value, MAX_FIELD_CHARS);
    } else if (typeof value === 'object' && value !== null) {
      const size = sizeOf(value);
      if (size.chars !== undefined && size.chars <= MAX_FIELD_CHARS) fields[key] = value;
      else omitted[key] = size;
    } else {
      fields[key] = value;
    }
  }
  // AggregateError's `errors` is not enumerable (a connect failure over IPv4 and IPv6 is one)
  if (Array.isArray(error.errors) && depth < MAX_DEPTH) {
    fields.aggregateErrors = error.errors.slice(0, 10).map((item: unknown) => (isErrorLike(item) ? serializeError(item) : sizeOf(item)));
    delete fields.errors;
  }
  if (Object.keys(omitted).length > 0) fields.omitted = omitted;
  const cause = error.cause;
  if (isErrorLike(cause) && depth < MAX_DEPTH) fields.cause = { type: typeOf(cause), ...fieldsOf(cause, seen, depth + 1) };
  return fields;
}

/** drizzle's `Failed query: <statement>\nparams: <every parameter>` becomes a size; any message is capped. */
function messageOf(error: ErrorLike): string {
  if (typeof error.query === 'string' && error.message.startsWith('Failed query:')) {
    const params = Array.isArray(error.params) ? error.params.length : 0;
    return `Failed query (${error.query.length} characters, ${params} parameters)`;
  }
  return cut(error.message, MAX_MESSAGE_CHARS);
}

/** The stack's frames under the (possibly shortened) message: a stack starts by repeating the message. */
function stackOf(error: ErrorLike): string | undefined {
  if (typeof error.stack !== 'string') return undefined;
  const frames = error.stack.indexOf('\n    at ');
  const header = `${error.name ?? typeOf(error)}: ${messageOf(error)}`;
  return cut(frames === -1 ? header : header + error.stack.slice(frames), MAX_STACK_CHARS);
}

function sizeOf(value: unknown): Size {
  const size: Size = {};
  if (Array.isArray(value)) size.count = value.length;
  if (typeof value === 'string') size.chars = value.length;
  else {
    try {
      const json = JSON.stringify(value);
      if (json !== undefined) size.chars = json.length;
    } catch {
      // circular (a request or response object): the count, if any, is all there is to say
    }
  }
  return size;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

function typeOf(error: ErrorLike): string {
  const constructor = (error as { constructor?: { name?: unknown } }).constructor;
  // an anonymous class (`module.exports = class extends Error`) has the name ''
  return typeof constructor?.name === 'string' && constructor.name !== '' && constructor.name !== 'Object' ? constructor.name : (error.name ?? 'Error');
}

function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}
