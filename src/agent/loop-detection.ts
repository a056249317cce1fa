import type { ToolCallPart } from '../core/chat-message.js';
import { parseToolArguments } from './tool-arguments.js';

export const DEFAULT_MAX_REPEATED_TOOL_CALLS = 3;

export const REPEATED_CALL_RESULT = 'Not run: this exact call was already made several times in a row with the same result.';

export function repeatedCallPrompt(name: string, times: number): string {
  return (
    `You called the tool ${name} with the same arguments ${times} times in a row, so the turn is ending here. ` +
    'Do not call any more tools. Answer the user now with what you have: what you found, and what is still open.'
  );
}

/** Arguments compared by meaning, not by spacing or key order. */
function signatureOf(call: ToolCallPart): string {
  const parsed = parseToolArguments(call.arguments);
  return `${call.name}\u0000${parsed.ok ? canonicalJson(parsed.value) : call.arguments.trim()}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Counts identical consecutive tool calls over the whole turn (resumed steps included). */
export class LoopDetector {
  #last: string | undefined;
  #run = 0;

  constructor(private readonly limit: number) {}

  /** Records the calls in order; returns the call that reached the limit, if one did. */
  observe(calls: ToolCallPart[]): { call: ToolCallPart; times: number } | undefined {
    let repeated: { call: ToolCallPart; times: number } | undefined;
    for (const call of calls) {
      const signature = signatureOf(call);
      this.#run = signature === this.#last ? this.#run + 1 : 1;
      this.#last = signature;
      if (this.limit > 0 && this.#run >= this.limit) repeated ??= { call, times: this.#run };
    }
    return repeated;
  }
}
