/**
 * A provider's own count of a Chat Completions request, with the real o200k tokenizer (as OpenAI counts
 * for its current models): each message's content, tool calls and tool results, about 4 tokens of framing
 * per message, and the tool definitions. Loaded lazily: the BPE tables are large.
 */
export async function countPromptTokens(body: any): Promise<number> {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  let tokens = body?.tools ? countTokens(JSON.stringify(body.tools)) : 0;
  for (const message of Array.isArray(body?.messages) ? body.messages : []) {
    tokens += 4;
    const content = message?.content;
    if (typeof content === 'string') tokens += countTokens(content);
    else if (Array.isArray(content)) for (const part of content) tokens += part?.type === 'text' ? countTokens(String(part.text)) : 85;
    for (const call of message?.tool_calls ?? []) tokens += countTokens(`${call.function?.name ?? ''}${call.function?.arguments ?? ''}`) + 4;
  }
  return tokens;
}
