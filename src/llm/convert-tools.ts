import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { ToolSpec } from './chat-model.js';

export function convertOpenAiTools(tools: ToolSpec[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: plainJson(tool.parameters) },
  }));
}

export function convertAnthropicTools(tools: ToolSpec[]): AnthropicTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: 'object', ...plainJson(tool.parameters) } as AnthropicTool.InputSchema,
  }));
}

/** TypeBox schemas carry symbol keys and may hold non-JSON values; the wire wants plain JSON. */
function plainJson(schema: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
