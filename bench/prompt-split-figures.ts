import type { Sql } from 'postgres';
import { PROMPT_SPLIT_PARTS, type PromptSplit } from '../src/core/trace-span.js';
import { percentile } from './percentiles.js';

/**
 * Where the prompts of the run went (run_spans.prompt_split of the turns' own calls): each part's share of all their
 * estimated tokens, and how far each call's estimated sum was from the provider's count (the double counts with o200k).
 */
export async function promptSplitFigures(sql: Sql): Promise<{ promptSplitShares: Record<string, number>; promptSplitCalls: number; promptSplitErrorP50: number; promptSplitErrorP95: number }> {
  const rows = await sql`SELECT prompt_split, coalesce(input_tokens, 0) + coalesce(cache_read_tokens, 0) + coalesce(cache_write_tokens, 0) AS reported
                           FROM run_spans WHERE kind = 'llm' AND prompt_split IS NOT NULL`;
  const totals = Object.fromEntries(PROMPT_SPLIT_PARTS.map((part) => [part, 0])) as Record<(typeof PROMPT_SPLIT_PARTS)[number], number>;
  const errors: number[] = [];
  for (const row of rows) {
    const split = row.prompt_split as PromptSplit;
    let estimated = 0;
    for (const part of PROMPT_SPLIT_PARTS) {
      totals[part] += split[part];
      estimated += split[part];
    }
    const reported = Number(row.reported);
    if (reported > 0) errors.push((estimated - reported) / reported);
  }
  const all = Math.max(1, Object.values(totals).reduce((sum, value) => sum + value, 0));
  const absolute = errors.map(Math.abs);
  return {
    promptSplitShares: Object.fromEntries(PROMPT_SPLIT_PARTS.map((part) => [part, Number((totals[part] / all).toFixed(3))])),
    promptSplitCalls: rows.length,
    promptSplitErrorP50: Number(percentile(absolute, 50).toFixed(3)),
    promptSplitErrorP95: Number(percentile(absolute, 95).toFixed(3)),
  };
}
