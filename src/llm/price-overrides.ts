import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { ModelPrice } from './pricing.js';

const PerMillion = Type.Number({ minimum: 0 });
const PriceSchema = Type.Object(
  { input: PerMillion, output: PerMillion, cacheRead: Type.Optional(PerMillion), cacheWrite: Type.Optional(PerMillion) },
  { additionalProperties: false },
);
const PricesSchema = Type.Record(Type.String({ minLength: 1 }), PriceSchema);

/**
 * `LLM_PRICES`: JSON `{ "<model>": { "input", "output", "cacheRead"?, "cacheWrite"? } }` in USD per million
 * tokens. Returns the table or a sentence saying what is wrong with it.
 */
export function parsePriceOverrides(json: string): Record<string, ModelPrice> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  const problem = Value.Errors(PricesSchema, parsed).First();
  if (problem) return `${problem.path || '/'}: ${problem.message}; expected { "<model>": { "input": usdPerMTok, "output": usdPerMTok, "cacheRead"?, "cacheWrite"? } }`;
  return parsed as Record<string, ModelPrice>;
}
