import { buildSystemPrompt, estimateTokens, prepareHistory, shouldSummarize, summaryPreamble, workspaceFor } from '../agent/index.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { TurnDependencies } from './turn-dependencies.js';

/** System prompt and the message list the model sees: summary preamble, pruned history, the new user message(s). */
export async function prepareModelInput(
  deps: TurnDependencies,
  input: { sessionId: string; latest: InboundMessage; userMessages: ChatMessage[]; clock: () => number },
): Promise<{ system: string; messages: ChatMessage[]; workspace: string; summarizeDue: boolean }> {
  const { latest } = input;
  const channel = deps.channels.for(latest.conversation);
  const [{ summary, history }, workspace] = await Promise.all([
    deps.store.loadContext(input.sessionId),
    workspaceFor(deps.settings.dataDir, latest.sender.id),
  ]);
  const assembled = buildSystemPrompt({
    identity: deps.settings.systemPrompt,
    channelSection: channel.promptSection(),
    chatContext: {
      chatType: latest.conversation.chatType,
      groupName: latest.chatTitle,
      senderName: latest.sender.name ?? latest.sender.username,
    },
    tools: deps.tools,
    now: new Date(input.clock()),
    workspace,
  });
  // the chat's own instructions (config file overrides) come last, below everything they may refine
  const chatPrompt = deps.settings.chatPrompt?.trim();
  const system = chatPrompt ? `${assembled}\n\n## Instructions for this chat\n${chatPrompt}` : assembled;
  const prior = [...(summary ? summaryPreamble(summary) : []), ...history];
  const everything = [...prior, ...input.userMessages];
  const messages = prepareHistory(everything, {
    historyTurns: deps.settings.historyTurns,
    contextWindow: deps.model.contextWindow,
  });
  // Judged on what the session holds since its summary (not on the pruned list the model sees).
  const summarizeDue = shouldSummarize({
    messageCount: history.length + input.userMessages.length,
    estimatedTokens: estimateTokens(everything),
    contextWindow: deps.model.contextWindow,
  });
  return { system, messages, workspace, summarizeDue };
}
