import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export type ParsedArguments = { ok: true; value: unknown } | { ok: false; raw: string; reason: string };

/** Models send `""` for a call without arguments; that is an empty object, not broken JSON. */
export function parseToolArguments(raw: string): ParsedArguments {
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (error) {
    return { ok: false, raw, reason: error instanceof Error ? error.message : String(error) };
  }
}

const MAX_LISTED_ERRORS = 10;

function allowedValues(schema: TSchema): string {
  const options = (schema as { anyOf?: Array<{ const?: unknown }> }).anyOf;
  if (!options || !options.every((option) => option.const !== undefined)) return '';
  return ` (one of: ${options.map((option) => JSON.stringify(option.const)).join(', ')})`;
}

/** One line per failing path (`/path: message`), empty when the arguments fit the schema. */
export function validateToolArguments(schema: TSchema, value: unknown): string[] {
  const lines = new Set<string>();
  for (const error of Value.Errors(schema, value)) {
    lines.add(`${error.path || '/'}: ${error.message}${allowedValues(error.schema)}`);
    if (lines.size >= MAX_LISTED_ERRORS) break;
  }
  return [...lines];
}
