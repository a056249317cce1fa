import { SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { ChatMessage } from '../core/chat-message.js';
import type { TraceSpan } from '../core/trace-span.js';

type LlmSpan = Extract<TraceSpan, { kind: 'llm' }>;

/**
 * A stored turn's spans as OpenTelemetry spans under `parent` (the turn's root), with their recorded times: model
 * calls as GenAI `chat` spans, tool calls as `execute_tool` spans, approvals and attachment work as spans of their
 * own, and what a sub-agent did as children of its `spawn_agent` call. Text (tool arguments and results, model
 * input) only with `captureContent`.
 */
export function exportRunSpans(tracer: Tracer, parent: Context, spans: readonly TraceSpan[], messages: ReadonlyArray<ChatMessage>, captureContent: boolean): void {
  const argumentsById = captureContent ? toolArguments(messages) : new Map<string, string>();
  // tool spans first: a sub-agent's spans come before its spawn_agent call's in the record and are its children
  const toolContexts = new Map<string, Context>();
  const open: Array<{ span: Span; endMs: number }> = [];
  for (const recorded of outermostFirst(spans)) {
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': recorded.name,
      'gen_ai.tool.call.id': recorded.toolCallId,
      'gen_ai.tool.type': 'function',
    };
    if (captureContent) {
      const args = argumentsById.get(recorded.toolCallId);
      if (args !== undefined) attributes['gen_ai.tool.call.arguments'] = args;
      attributes['gen_ai.tool.call.result'] = recorded.outputPreview;
    }
    const span = tracer.startSpan(`execute_tool ${recorded.name}`, { kind: SpanKind.INTERNAL, startTime: recorded.startedAt, attributes }, parentOf(recorded.parentToolCallId));
    if (recorded.isError) span.setStatus({ code: SpanStatusCode.ERROR, ...(captureContent && recorded.error ? { message: recorded.error } : {}) });
    if (recorded.isError) span.setAttribute('error.type', 'tool_error');
    toolContexts.set(recorded.toolCallId, trace.setSpan(parent, span));
    open.push({ span, endMs: recorded.startedAt + recorded.durationMs });
  }
  function parentOf(toolCallId: string | undefined): Context {
    return (toolCallId !== undefined ? toolContexts.get(toolCallId) : undefined) ?? parent;
  }
  for (const recorded of spans) {
    switch (recorded.kind) {
      case 'tool':
        break;
      case 'llm': {
        const span = tracer.startSpan(`chat ${recorded.model}`, { kind: SpanKind.CLIENT, startTime: recorded.startedAt, attributes: llmAttributes(recorded, captureContent) }, parentOf(recorded.parentToolCallId));
        if (recorded.error !== undefined) {
          span.setAttribute('error.type', recorded.error === 'cancelled' ? 'cancelled' : 'model_error');
          span.setStatus({ code: SpanStatusCode.ERROR, message: recorded.error.slice(0, 300) });
        }
        span.end(recorded.startedAt + recorded.durationMs);
        break;
      }
      case 'approval': {
        const span = tracer.startSpan(
          `approval ${recorded.name}`,
          {
            startTime: recorded.startedAt,
            attributes: { 'gen_ai.tool.name': recorded.name, 'gen_ai.tool.call.id': recorded.toolCallId, 'chatbot.approval.allowed': !recorded.isError, 'chatbot.approval.decision': recorded.outputPreview.split(' ')[0] ?? '' },
          },
          parentOf(recorded.parentToolCallId),
        );
        span.end(recorded.startedAt + recorded.durationMs);
        break;
      }
      case 'media': {
        const span = tracer.startSpan(`media ${recorded.name}`, { startTime: recorded.startedAt, attributes: { 'chatbot.media.detail': recorded.detail } }, parentOf(recorded.parentToolCallId));
        if (recorded.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: recorded.error.slice(0, 300) });
        span.end(recorded.startedAt + recorded.durationMs);
        break;
      }
    }
  }
  for (const { span, endMs } of open) span.end(endMs);
}

function llmAttributes(span: LlmSpan, captureContent: boolean): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': span.provider,
    'gen_ai.system': span.provider,
    'gen_ai.request.model': span.model,
    'chatbot.llm.iteration': span.iteration,
  };
  if (span.error === undefined) attributes['gen_ai.response.model'] = span.model;
  if (span.usage) {
    const cacheRead = span.usage.cacheReadTokens ?? 0;
    const cacheWrite = span.usage.cacheWriteTokens ?? 0;
    // the provider's whole input: our Usage counts the cached parts apart from the rest
    attributes['gen_ai.usage.input_tokens'] = span.usage.inputTokens + cacheRead + cacheWrite;
    attributes['gen_ai.usage.output_tokens'] = span.usage.outputTokens;
    if (cacheRead > 0) attributes['gen_ai.usage.cache_read.input_tokens'] = cacheRead;
    if (cacheWrite > 0) attributes['gen_ai.usage.cache_creation.input_tokens'] = cacheWrite;
  }
  if (span.finishReason !== undefined) attributes['gen_ai.response.finish_reasons'] = [span.finishReason];
  if (span.costUsd !== undefined) attributes['chatbot.cost_usd'] = span.costUsd;
  if (span.purpose !== undefined) attributes['chatbot.llm.purpose'] = span.purpose;
  if (span.parentToolCallId !== undefined) attributes['chatbot.subagent'] = true;
  if (captureContent && span.input !== undefined) attributes['gen_ai.input.messages'] = span.input;
  return attributes;
}

type ToolSpan = Extract<TraceSpan, { kind: 'tool' }>;

/** The tool spans, a spawn_agent call before the calls its sub-agent made (the record has them the other way round). */
function outermostFirst(spans: readonly TraceSpan[]): ToolSpan[] {
  const tools = spans.filter((span): span is ToolSpan => span.kind === 'tool');
  const parents = new Map(tools.map((span) => [span.toolCallId, span.parentToolCallId]));
  const depth = (span: ToolSpan): number => {
    let levels = 0;
    for (let id = span.parentToolCallId; id !== undefined && levels < 16; id = parents.get(id)) levels++;
    return levels;
  };
  return tools.map((span) => ({ span, depth: depth(span) })).sort((a, b) => a.depth - b.depth).map(({ span }) => span);
}

/** Each tool call's arguments (JSON text) by call id, from the turn's assistant messages. */
function toolArguments(messages: ReadonlyArray<ChatMessage>): Map<string, string> {
  const byId = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.parts) if (part.type === 'tool-call') byId.set(part.id, part.arguments);
  }
  return byId;
}
