import { randomUUID } from 'node:crypto';
import type { TraceSpan } from '../../src/agent/agent-events.js';
import type { MessagePart } from '../../src/core/chat-message.js';
import { ensureSession, type SessionRow, type StoreDatabase, type TurnRecord } from '../../src/store/index.js';

export async function newSession(db: StoreDatabase, chatType: 'dm' | 'group' = 'dm'): Promise<SessionRow> {
  const chatId = randomUUID();
  return ensureSession(db, {
    key: `agent:main:telegram:bot:${chatType}:${chatId}`,
    agentId: 'main',
    channel: 'telegram',
    accountId: 'bot',
    chatId,
    chatType,
    userId: chatType === 'dm' ? chatId : undefined,
  });
}

const text = (value: string): MessagePart[] => [{ type: 'text', text: value }];

/** A turn with a user message, a tool call, its result and an answer: four messages, two spans. */
export function turnRecord(session: SessionRow, overrides: Partial<TurnRecord> = {}): TurnRecord {
  const runId = overrides.runId ?? `run-${randomUUID()}`;
  const startedAt = new Date('2025-01-01T10:00:00.000Z');
  const spans: TraceSpan[] = [
    {
      kind: 'llm',
      name: 'openai:gpt-test',
      provider: 'openai',
      model: 'gpt-test',
      iteration: 1,
      startedAt: startedAt.getTime(),
      durationMs: 120.4,
      usage: { inputTokens: 100, outputTokens: 20 },
      costUsd: 0.001,
      error: undefined,
      input: undefined,
    },
    {
      kind: 'tool',
      name: 'clock',
      toolCallId: 'call-1',
      startedAt: startedAt.getTime() + 130,
      durationMs: 3,
      isError: false,
      error: undefined,
      outputPreview: '10:00',
    },
  ];
  return {
    runId,
    sessionKey: session.key,
    sessionId: session.id,
    messages: [
      { role: 'user', parts: text(`what time is it? (${runId})`), inboundKey: `telegram:${runId}`, createdAt: startedAt },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'call-1', name: 'clock', arguments: '{}' }], createdAt: startedAt },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'call-1', name: 'clock', content: '10:00', isError: false }], createdAt: startedAt },
      { role: 'assistant', parts: text(`It is 10:00. (${runId})`), createdAt: startedAt },
    ],
    run: {
      status: 'completed',
      silent: false,
      provider: 'openai',
      model: 'gpt-test',
      iterations: 2,
      inputTokens: 150,
      outputTokens: 30,
      costUsd: 0.0015,
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 1500),
      deliveredMessageIds: ['501'],
    },
    spans,
    ...overrides,
  };
}
