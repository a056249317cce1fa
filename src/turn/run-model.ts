import { createHash } from 'node:crypto';
import {
  ChatPromptCache,
  contextBudget,
  memorySection,
  runAgent,
  summaryDue,
  summaryPreamble,
  ensureWorkspace,
  workspacePathFor,
  isTerminalEvent,
  type AgentEvent,
  type TerminalEvent,
  type TurnStep,
} from '../agent/index.js';
import type { ChatMessage } from '../core/chat-message.js';
import { BotError } from '../core/errors.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { TurnAbortError } from '../core/turn-abort.js';
import { priceTableOf } from '../llm/pricing.js';
import type { ApprovalGate } from '../core/approval.js';
import { createApprovalGate } from '../approvals/approval-gate.js';
import { createUnattendedGate } from '../approvals/unattended-gate.js';
import { contextFilesSection } from '../workspace/index.js';
import { createContextController } from './context-controller.js';
import { spawnToolFor } from './subagents.js';
import { withDmEnvelope, type TurnInput } from './turn-input.js';
import type { OpenedSession, SessionInfo, TurnDependencies } from './turn-dependencies.js';


export interface ModelTurnInput {
  turnId: string;
  sessionKey: string;
  /** The session as the turn opened it (its stored history). */
  session: OpenedSession;
  sessionInfo: SessionInfo;
  /** The lease holder: steps are saved only while it holds the turn. */
  holder: string;
  /** The turn ran before: continue after its saved steps. */
  resumed: boolean;
  latest: InboundMessage;
  /** The memory section's lines, asked for when the turn began (see run-turn.ts); the promise never rejects. */
  memories: Promise<string[]>;
  user: TurnInput;
  signal: AbortSignal;
  clock: () => number;
  /** Every event of the loop as it happens (live replies listen for text deltas). */
  onEvent?: (event: AgentEvent) => void;
}

/** CONTRACT §11: unanswered for ten minutes, a call counts as denied. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 600_000;

/**
 * A stored DM message with its time envelope, made once per message object: a cached history gives the same
 * objects turn after turn, so the model sees byte-identical messages and their token estimates are kept.
 */
const enveloped = new WeakMap<object, ChatMessage>();

/** The chats' system prompts of this process (the same text turn after turn, see ChatPromptCache). */
const chatPrompts = new ChatPromptCache();

/** The summary preamble and the stored history as the model sees them (a DM's user messages with their time). */
function priorMessages(summary: string | undefined, history: ReadonlyArray<ChatMessage & { createdAt?: Date }>, dm: boolean): ChatMessage[] {
  const messages = history.map((stored) => {
    if (!dm || !stored.createdAt) return stored;
    let message = enveloped.get(stored);
    if (!message) {
      const { createdAt, ...plain } = stored;
      message = withDmEnvelope(plain, createdAt!);
      enveloped.set(stored, message);
    }
    return message;
  });
  return [...(summary ? summaryPreamble(summary) : []), ...messages];
}

/**
 * Who decides about tool calls: in a scheduled task's run nobody can be asked, and privileged tools run only
 * when the config allows them there (never on an allowance given in the chat); in a chat turn, the person.
 */
function approvalsOf(deps: TurnDependencies, { latest, sessionKey, turnId, clock, holder }: ModelTurnInput): { approvals?: ApprovalGate } {
  const requireApproval = deps.settings.requireApproval ?? [];
  if (latest.scheduled) {
    const context = { runId: turnId, sessionKey, taskId: latest.scheduled.taskId };
    return { approvals: createUnattendedGate({ allowTools: deps.settings.scheduledAllowTools ?? [], requireApproval, logger: deps.logger, context }) };
  }
  if (!deps.approvals) return {};
  const timeoutMs = deps.settings.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  return {
    approvals: createApprovalGate({
      records: deps.approvals,
      channels: deps.channels,
      sessionKey,
      turnId,
      latest,
      patterns: requireApproval,
      timeoutMs,
      clock,
      logger: deps.logger,
      promptProgress: (approvalId) => deps.deliveries.resume({ sessionKey, turnId, holder }, `approval:${approvalId}`, latest.conversation.channel),
    }),
  };
}

/** Whose files a turn's tools see: the group's own workspace in a group, never a member's private one. */
export function workspaceOwnerOf(message: InboundMessage): string {
  const { conversation } = message;
  return conversation.chatType === 'group' ? `group:${conversation.channel}:${conversation.accountId}:${conversation.chatId}` : message.sender.id;
}

/**
 * Runs the agent loop on the assembled input, saving each completed step so that a retry (model error,
 * crash, takeover) continues after the last one; context pressure is handled before every model call.
 */
export async function runModelTurn(deps: TurnDependencies, input: ModelTurnInput): Promise<{ terminal: TerminalEvent; summarizeDue: boolean }> {
  const { latest, sessionKey, turnId } = input;
  const channel = deps.channels.for(latest.conversation);
  const { summary, history } = input.session;
  const workspace = workspacePathFor(deps.settings.dataDir, workspaceOwnerOf(latest));
  const [steps, memories] = await Promise.all([
    input.resumed ? deps.checkpoints.load(sessionKey, turnId) : Promise.resolve([] as TurnStep[]),
    input.memories,
  ]);
  const spawnTool = spawnToolFor(deps, latest, turnId, input.clock);
  const tools = spawnTool ? [...deps.tools, spawnTool] : deps.tools;
  const withChat = chatPrompts.prompt({
    identity: deps.settings.systemPrompt,
    channelSection: channel.promptSection(),
    chatContext: {
      chatType: latest.conversation.chatType,
      groupName: input.user.chatTitle,
      senderName: latest.conversation.chatType === 'dm' ? (latest.sender.name ?? latest.sender.username) : undefined,
    },
    tools,
    workspace,
    chatPrompt: deps.settings.chatPrompt,
  });
  // context files and memory last: they are the parts that change between turns (see memorySection)
  const contextFiles = await contextFilesSection(workspace);
  const memory = memorySection(memories);
  // the tool notice (an MCP server unavailable) changes rarely: after the chat's prompt, before the parts that change
  const notice = deps.settings.toolNotice ?? '';
  const system = contextFiles === '' && memory === '' && notice === '' ? withChat : [withChat, notice, contextFiles, memory].filter((section) => section !== '').join('\n\n');
  const prior = priorMessages(summary, history, latest.conversation.chatType === 'dm');
  if (steps.length > 0) deps.logger.info({ runId: turnId, sessionKey, steps: steps.length }, 'resuming the turn after its saved steps');

  const context = createContextController({
    model: deps.model,
    calibration: deps.calibration,
    historyTurns: deps.settings.historyTurns,
    sessionKey,
    prior,
    priorLength: prior.length,
    compactor: deps.compactor,
    loadPrior: async () => {
      const reloaded = await deps.store.reloadContext(input.sessionInfo, input.session.conversation);
      return priorMessages(reloaded.summary, reloaded.history, latest.conversation.chatType === 'dm');
    },
    logger: deps.logger,
  });
  const checkpoint = async (step: TurnStep): Promise<void> => {
    if ((await deps.checkpoints.append(sessionKey, turnId, input.holder, step)) === 'lost') throw new TurnAbortError('leaseLost');
  };

  let terminal: TerminalEvent | undefined;
  for await (const event of runAgent({
    runId: turnId,
    system,
    messages: [...prior, ...input.user.forModel],
    tools,
    model: deps.model,
    maxIterations: deps.settings.maxIterations,
    signal: input.signal,
    toolContext: {
      signal: input.signal,
      workspace,
      ensureWorkspace: () => ensureWorkspace(workspace),
      sessionKey,
      userId: latest.sender.id,
      conversation: latest.conversation,
      agentId: latest.agentId,
      turnId,
      ...(deps.missingTool ? { missingTool: deps.missingTool } : {}),
      ...(deps.fileSends ? { sendFile: deps.fileSends.sender(channel, latest.conversation, { sessionKey, turnId, holder: input.holder }, input.resumed) } : {}),
    },
    clock: input.clock,
    traceVerbose: deps.settings.traceVerbose,
    prices: priceTableOf(deps.settings.llmPrices),
    resume: steps,
    checkpoint,
    context,
    cacheKey: createHash('sha256').update(sessionKey).digest('hex').slice(0, 32),
    promptMarkers: { memory, newMessages: new Set(input.user.forModel) },
    ...approvalsOf(deps, input),
  })) {
    input.onEvent?.(event);
    if (event.type === 'loop-detected') deps.logger.warn({ runId: turnId, sessionKey, tool: event.name, times: event.times }, 'the model repeated a tool call; ending the turn');
    if (isTerminalEvent(event)) terminal = event;
  }
  if (!terminal) throw new BotError('internal', 'agent run ended without a terminal event');
  // Judged on what the session holds since its summary (not on the pruned list the model saw).
  const summarizeDue = summaryDue([...prior, ...input.user.forModel, ...terminal.messages], {
    budget: contextBudget(deps.model.contextWindow, deps.model.maxOutputTokens),
    historyTurns: deps.settings.historyTurns,
    factor: deps.calibration.factor(`${deps.model.provider}:${deps.model.model}`),
  });
  return { terminal, summarizeDue };
}
