import type { ChatCompletionCreateParamsBase, ChatCompletionTool } from 'openai/resources/chat/completions';

/** Each tool's JSON, made once per wire form (the forms are cached per spec, see convert-tools.ts). */
const toolJson = new WeakMap<ChatCompletionTool, string>();

/**
 * A Chat Completions request as the JSON the SDK would send, for its `body` request option. The SDK serializes
 * this endpoint's body through a replacer (it watches for `stream`), which keeps V8 off its fast path: measured,
 * 32 µs for a request with 16 tools against 6 µs for a plain `JSON.stringify` of everything but the tools with
 * their JSON spliced in from this cache. Key order aside, the bytes are the same.
 */
export function openAiRequestBody(params: ChatCompletionCreateParamsBase): string {
  const { tools, ...rest } = params;
  const json = JSON.stringify(rest);
  if (!tools?.length) return json;
  const toolsJson = tools.map((tool) => {
    let encoded = toolJson.get(tool);
    if (encoded === undefined) {
      encoded = JSON.stringify(tool);
      toolJson.set(tool, encoded);
    }
    return encoded;
  });
  // `rest` always holds the model and messages, so `json` is a non-empty object: `{…}`
  return `${json.slice(0, -1)},"tools":[${toolsJson.join(',')}]}`;
}
