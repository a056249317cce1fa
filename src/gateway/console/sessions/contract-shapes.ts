import type { PromptSplit } from '../../../core/trace-span.js';
import type { MessagePart } from '../../../core/chat-message.js';
import type { ConsoleSession, TranscriptMessage, TranscriptRun, TranscriptSpan } from '../../../store/index.js';

/** The JSON shapes of CONTRACT §15; optional fields are left out when there is nothing in them. */
export interface SessionJson {
  key: string;
  channel: string;
  chatId: string;
  title?: string;
  lastActivityAt: string;
  turns: number;
  costUsd: number;
}

export interface MessageJson {
  role: string;
  text: string;
  createdAt: string;
  runId?: string;
}

export interface SpanJson {
  kind: string;
  name: string;
  startedAt: string;
  durationMs: number;
  inputTokens?: number;
  outputTokens?: number;
  error?: string;
  /** A `spawn_agent` call that ran a sub-agent: the model's id of the call (its spans name it as their parent). */
  toolCallId?: string;
  /** A sub-agent's span: the `spawn_agent` call (its `toolCallId`) it ran for. */
  parentToolCallId?: string;
  /** LLM spans: prompt tokens read from the provider's cache. */
  cacheReadTokens?: number;
  /** LLM spans of the turn's own calls: where the prompt went, in estimated tokens. */
  promptSplit?: PromptSplit;
}

export interface RunJson {
  id: string;
  status: string;
  startedAt: string;
  endedAt: string;
  costUsd: number;
  spans: SpanJson[];
}

export function sessionJson(session: ConsoleSession): SessionJson {
  return {
    key: session.key,
    channel: session.channel,
    chatId: session.chatId,
    ...(session.title ? { title: session.title } : {}),
    lastActivityAt: session.lastActivityAt.toISOString(),
    turns: session.turns,
    costUsd: session.costUsd,
  };
}

export function messageJson(message: TranscriptMessage): MessageJson {
  return {
    role: message.role,
    text: messageText(message.parts),
    createdAt: message.createdAt.toISOString(),
    ...(message.runId ? { runId: message.runId } : {}),
  };
}

export function runJson(run: TranscriptRun): RunJson {
  const parents = new Set(run.spans.flatMap((span) => (span.parentToolCallId ? [span.parentToolCallId] : [])));
  return {
    id: run.id,
    status: run.status,
    startedAt: run.startedAt.toISOString(),
    endedAt: run.finishedAt.toISOString(),
    costUsd: run.costUsd,
    spans: run.spans.map((span) => spanJson(span, parents)),
  };
}

/** `parents`: the tool call ids sub-agent spans name; only those calls carry their id (the contract's shape otherwise). */
export function spanJson(span: TranscriptSpan, parents: ReadonlySet<string> = new Set()): SpanJson {
  const error = spanError(span);
  return {
    kind: span.kind,
    name: span.name,
    startedAt: span.startedAt.toISOString(),
    durationMs: span.durationMs,
    ...(span.inputTokens !== null ? { inputTokens: span.inputTokens } : {}),
    ...(span.outputTokens !== null ? { outputTokens: span.outputTokens } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(span.toolCallId && parents.has(span.toolCallId) ? { toolCallId: span.toolCallId } : {}),
    ...(span.parentToolCallId ? { parentToolCallId: span.parentToolCallId } : {}),
    ...(span.cacheReadTokens ? { cacheReadTokens: span.cacheReadTokens } : {}),
    ...(span.promptSplit ? { promptSplit: span.promptSplit } : {}),
  };
}

/** A failed tool keeps its error text in the output preview. */
export function spanError(span: TranscriptSpan): string | undefined {
  if (span.error) return span.error;
  return span.isError ? span.outputPreview || 'failed' : undefined;
}

/**
 * A message as plain text: its text parts, then one line per tool call (`name(arguments)`) and the
 * content of tool results. Reasoning is left out (it is never shown to users either).
 */
export function messageText(parts: MessagePart[]): string {
  let text = '';
  const lines: string[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'text':
        text += part.text;
        break;
      case 'tool-call':
        lines.push(`${part.name}(${part.arguments})`);
        break;
      case 'tool-result':
        lines.push(part.content);
        break;
      case 'reasoning':
        break;
    }
  }
  return [text, ...lines].filter((line) => line !== '').join('\n');
}
