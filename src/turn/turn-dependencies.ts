import type { TokenCalibration, TurnStep } from '../agent/index.js';
import type { AgentTool } from '../agent/tools/agent-tool.js';
import type { SubagentSetup } from '../agent/tools/spawn-agent.js';
import type { InputGuardMode, ModelChoiceScope } from '../config/app-config.js';
import type { ChannelRegistry } from '../core/channel-registry.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { ModelPrice } from '../llm/pricing.js';
import type { MediaProcessor } from '../media/index.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ApprovalRecords } from '../approvals/approval-records.js';
import type { GroupContextPort } from '../core/turn-ports.js';
import type { Compactor } from './compaction.js';
import type { DeliveryRecords } from './delivery-records.js';
import type { FileSendRecords } from './file-sends.js';
import type { FlushRetryOptions } from './flush-with-retry.js';
import type { TurnOutcome } from '../core/turn-contract.js';
import type { TurnRecord } from '../store/turn-record.js';

export type { OpenedSession, SessionInfo, TurnStore } from './turn-store.js';
import type { TurnStore } from './turn-store.js';

/** The completed steps of running turns, fenced by the lease holder (checkpoint-store.ts over the TurnStatePort). */
export interface TurnCheckpointStore {
  /** `lost`: the holder no longer holds the turn; nothing was written. */
  append(sessionKey: string, turnId: string, holder: string, step: TurnStep): Promise<'ok' | 'lost'>;
  load(sessionKey: string, turnId: string): Promise<TurnStep[]>;
}

export interface TurnSettings {
  systemPrompt: string | undefined;
  maxIterations: number;
  historyTurns: number;
  inputGuard: InputGuardMode;
  traceVerbose: boolean;
  /** TYPING_DELAY_MS: the working indicator starts once the turn has run this long (see working-indicator.ts); absent: at once. */
  typingDelayMs?: number;
  dataDir: string;
  /** Where answers are streamed into a draft edited in place (LLM_STREAM; groups per channel config). */
  liveReplies: 'off' | 'dm' | 'all';
  /** The chat's own instructions (config file: channel, account, group), appended to the system prompt. */
  chatPrompt?: string | undefined;
  /** How long a tool call waits for a person's approval before it counts as denied (APPROVAL_TIMEOUT_MS). */
  approvalTimeoutMs?: number;
  /** The agent's `toolPolicy.requireApproval` patterns. */
  requireApproval?: string[];
  /** The agent's `schedules.allowTools` patterns: privileged tools a scheduled task's run may use. */
  scheduledAllowTools?: string[];
  /** One line naming the tool sources (MCP servers) of the agent unavailable at the turn's start; absent: none. */
  toolNotice?: string | undefined;
  /** LLM_PRICES: added to / overriding the built-in price table for the runs' and spans' cost. */
  llmPrices?: Record<string, ModelPrice>;
  /** The agent's `subagents` (config file; default on): whether it is offered `spawn_agent`. */
  subagents?: boolean;
}

/** Sub-agents (CONTRACT §18): the limits, and the agents a child may run as. */
export interface SubagentSupport {
  /** SUBAGENT_MAX_DEPTH: 0 offers `spawn_agent` to nobody, 1 to the turn's agent only. */
  maxDepth: number;
  /** SUBAGENT_MAX_PARALLEL */
  maxParallel: number;
  agentNames: string[];
  /** The named agent, or (no name) the calling agent; its model not yet charged to any budget. Undefined: no such agent. */
  agentFor(name: string | undefined, callingAgentId: string): SubagentSetup | undefined | Promise<SubagentSetup | undefined>;
}

/** The agent that answers one message, with its chat's settings applied (config file agents and overrides). */
export interface TurnAgent {
  model: ChatModel;
  /** What `/model` may choose for a session, by `provider:model` (the agent's own model among them); absent: only `model`. */
  modelChoices?: ReadonlyMap<string, ChatModel>;
  /** What a `/model` choice applies to (the agent's `modelChoice`); absent: the session. */
  modelChoice?: ModelChoiceScope;
  tools: AgentTool[];
  systemPrompt: string | undefined;
  maxIterations: number;
  liveReplies: 'off' | 'dm' | 'all';
  chatPrompt: string | undefined;
  requireApproval?: string[];
  scheduledAllowTools?: string[];
  /** Offered `spawn_agent` (config file `subagents`, default on). */
  subagents?: boolean;
  /** One line for the system prompt naming the agent's tool sources unavailable now (MCP servers); absent: none. */
  toolNotice?: string | undefined;
}

export interface TurnDependencies {
  store: TurnStore;
  channels: ChannelRegistry;
  model: ChatModel;
  /** The models a session's `/model` choice picks from, by `provider:model` (see chosen-model.ts); absent: `model` only. */
  modelChoices?: ReadonlyMap<string, ChatModel>;
  /** `chat`: the session's chat's `/model` choice counts, not the session's (see chosen-model.ts); absent: `session`. */
  modelChoice?: ModelChoiceScope;
  tools: AgentTool[];
  groupContext: GroupContextPort;
  deliveries: DeliveryRecords;
  checkpoints: TurnCheckpointStore;
  /** The providers' usage reports correct the token estimate (one per process, shared by its turns). */
  calibration: TokenCalibration;
  settings: TurnSettings;
  logger: Logger;
  metrics?: Metrics;
  /** Summarization under the per-session lock; absent: sessions are never compacted. */
  compactor?: Compactor;
  clock?: () => number;
  /** How long a failing flush is retried (tests shorten it). */
  flushRetry?: FlushRetryOptions;
  /**
   * Called once after a turn is stored (best effort: a failure is logged, the turn stands), e.g. to record a
   * scheduled task's firing outcome.
   */
  afterTurn?: (finished: { messages: InboundMessage[]; record: TurnRecord; outcome: TurnOutcome }) => Promise<void>;
  /** Approval requests in Redis; absent: tools that need approval are refused (nobody can be asked). */
  approvals?: ApprovalRecords;
  /** Daily budgets: wraps a turn's model so each call is reserved and settled (src/budgets); absent: no limits. */
  budgets?: {
    guard(model: ChatModel, message: InboundMessage): Promise<ChatModel>;
    /** Charges a cost already incurred outside a ChatModel (a transcription) to the message's budgets. */
    charge?(message: InboundMessage, usd: number): Promise<void>;
  };
  /** The system prompt's memory lines for a turn (src/memory), chosen by the new messages' text; absent: no memory section. */
  memoryLines?: (message: InboundMessage, query: string) => Promise<string[]>;
  /** `send_file` records (once per turn and tool call); absent: the tool reports that files cannot be sent. */
  fileSends?: FileSendRecords;
  /** Attachments (photos, voice, documents) at turn time; absent: messages are answered from their text only. */
  media?: MediaProcessor;
  /**
   * The message's agent and chat settings; absent: `model`, `tools` and `settings` serve every message. It may wait
   * (MCP servers' first connection after a start, bounded) unless `signal` stops the turn.
   */
  agentFor?: (message: InboundMessage, signal?: AbortSignal) => TurnAgent | Promise<TurnAgent>;
  /** A call to a tool the turn does not have, of a tool source unavailable now (see ToolContext.missingTool). */
  missingTool?: (toolName: string, agentId: string | undefined) => string | undefined;
  /** `spawn_agent` and what it needs; absent: no sub-agents. */
  subagents?: SubagentSupport;
}

/** The dependencies as one turn sees them: the model, tools and settings of the latest message's agent and chat. */
export async function forAgent(deps: TurnDependencies, message: InboundMessage, signal?: AbortSignal): Promise<TurnDependencies> {
  const agent = await deps.agentFor?.(message, signal);
  if (!agent) return deps;
  return {
    ...deps,
    model: agent.model,
    ...(agent.modelChoices ? { modelChoices: agent.modelChoices } : {}),
    ...(agent.modelChoice ? { modelChoice: agent.modelChoice } : {}),
    tools: agent.tools,
    settings: {
      ...deps.settings,
      systemPrompt: agent.systemPrompt,
      maxIterations: agent.maxIterations,
      liveReplies: agent.liveReplies,
      chatPrompt: agent.chatPrompt,
      ...(agent.requireApproval ? { requireApproval: agent.requireApproval } : {}),
      ...(agent.scheduledAllowTools ? { scheduledAllowTools: agent.scheduledAllowTools } : {}),
      ...(agent.subagents !== undefined ? { subagents: agent.subagents } : {}),
      toolNotice: agent.toolNotice,
    },
  };
}
