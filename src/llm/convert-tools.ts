import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { ToolSpec } from './chat-model.js';

/**
 * A tool's wire form, made once per spec (specs are stable objects, see agent-loop.ts): every request carries the
 * same tools, and copying their schemas into plain JSON each time cost more than the rest of the request building.
 * The forms are shared, never mutated (a cache breakpoint is added to a copy).
 */
const openAiForms = new WeakMap<ToolSpec, ChatCompletionFunctionTool>();
const anthropicForms = new WeakMap<ToolSpec, AnthropicTool>();

function formOf<Form>(forms: WeakMap<ToolSpec, Form>, tool: ToolSpec, make: (tool: ToolSpec) => Form): Form {
  let form = forms.get(tool);
  if (!form) {
    form = make(tool);
    forms.set(tool, form);
  }
  return form;
}

export function convertOpenAiTools(tools: ToolSpec[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) =>
    formOf(openAiForms, tool, () => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: plainJson(tool.parameters) } })),
  );
}

export function convertAnthropicTools(tools: ToolSpec[]): AnthropicTool[] {
  return tools.map((tool) =>
    formOf(anthropicForms, tool, () => ({ name: tool.name, description: tool.description, input_schema: { type: 'object', ...plainJson(tool.parameters) } as AnthropicTool.InputSchema })),
  );
}

/** TypeBox schemas carry symbol keys and may hold non-JSON values; the wire wants plain JSON. */
function plainJson(schema: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
