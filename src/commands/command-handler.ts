import type { CommandButton } from '../core/command-buttons.js';
import type { ConversationRef, InboundMessage } from '../core/inbound-message.js';
import { sessionKeyOf } from '../core/session-key.js';
import type { SessionUsage } from '../usage/session-usage.js';
import { currentChoice, modelCommand, type ModelAnswer, type ModelChoices } from './model-command.js';
import { COMMAND_DESCRIPTIONS, type ChatCommand } from './parse-command.js';

export interface ModelInfo {
  provider: string;
  name: string;
  contextWindow: number;
}

/** What commands act on; wired to the scheduler, abort bus, store and channels by the app. */
export interface CommandDependencies {
  stopSession(sessionKey: string): Promise<{ abortedTurns: number; droppedMessages: number }>;
  /** `/new`: turns claimed from now on start a new conversation (the one running or storing ends the old one). */
  resetSession(sessionKey: string, message: InboundMessage): Promise<void>;
  /**
   * `/new` where the channel opens a new place for it (a Telegram topic in a private chat): that place, whose session
   * starts empty; undefined (or absent): the current session is reset instead.
   */
  openConversation?(message: InboundMessage): Promise<{ conversation: ConversationRef; title: string } | undefined>;
  /** `message`: the /compact itself; the summary is charged to its user, chat and agent. */
  requestCompaction(sessionKey: string, message: InboundMessage): Promise<'scheduled' | 'nothing-to-compact'>;
  sessionUsage(sessionKey: string): Promise<SessionUsage | undefined>;
  /** `paused`: an operator paused every turn (the queue view): what waits starts when they resume. */
  queueDepth(sessionKey: string): Promise<{ pending: number; active: number; paused?: boolean }>;
  /** The model /status names: one for all, or the session's agent's (config file agents). */
  model: ModelInfo | ((sessionKey: string) => ModelInfo);
  reply(message: InboundMessage, text: string): Promise<void>;
  /** The reply with a button per command (`/model`'s list); absent, or a platform without buttons: `reply`. */
  replyWithButtons?(message: InboundMessage, text: string, buttons: CommandButton[]): Promise<void>;
  /** `/model` (CONTRACT §20); absent: /status names `model` and /model only that. */
  models?: ModelChoices;
  /** `/usage` (src/usage/usage-report.ts); absent: the command says usage is not available. */
  usageReport?(message: InboundMessage): Promise<string>;
  /** `/tasks [cancel <id>]` (src/schedules); absent: schedules are off. */
  tasks?: (message: InboundMessage, args: string) => Promise<string>;
  /** `/memory` and `/forget <id>` (src/memory); absent: memory is off. */
  memory?: { list(message: InboundMessage): Promise<string>; forget(message: InboundMessage, args: string): Promise<string> };
  /** `/status`'s line on the session's agent's MCP servers (see mcp-status.ts); absent or undefined: no line. */
  mcpStatus?: (sessionKey: string) => Promise<string | undefined>;
}

const number = new Intl.NumberFormat('en-US');

/** Commands act at once in the gateway and are never queued behind a running turn. */
export function createCommandHandler(deps: CommandDependencies) {
  return async function handleCommand(command: ChatCommand, message: InboundMessage): Promise<string> {
    const sessionKey = sessionKeyOf(message);
    if (command.name === 'model') {
      const { text, buttons } = await model(sessionKey, message, command.args);
      if (buttons && buttons.length > 0 && deps.replyWithButtons) await deps.replyWithButtons(message, text, buttons);
      else await deps.reply(message, text);
      return text;
    }
    const text = command.name === 'usage' ? await usage(message) : await answer(command, sessionKey, message);
    await deps.reply(message, text);
    return text;
  };

  async function model(sessionKey: string, message: InboundMessage, args: string): Promise<ModelAnswer> {
    if (deps.models) return modelCommand(deps.models, sessionKey, message, args);
    const { provider, name } = typeof deps.model === 'function' ? deps.model(sessionKey) : deps.model;
    return { text: `This chat uses ${provider}/${name}; no other model is offered here.` };
  }

  async function answer(command: ChatCommand, sessionKey: string, message: InboundMessage): Promise<string> {
    switch (command.name) {
      case 'stop': {
        const { abortedTurns, droppedMessages } = await deps.stopSession(sessionKey);
        if (abortedTurns === 0 && droppedMessages === 0) return 'Nothing to stop.';
        const dropped = droppedMessages > 0 ? ` Dropped ${droppedMessages} waiting message${droppedMessages === 1 ? '' : 's'}.` : '';
        return `Stopped.${dropped}`;
      }
      case 'new': {
        const opened = await deps.openConversation?.(message);
        if (opened) {
          // the new topic is a session of its own, empty; the one the user was in stays as it was
          await deps.reply({ ...message, conversation: opened.conversation }, 'A fresh conversation: write here.');
          return `Opened the topic “${opened.title}” for a fresh conversation; this one is kept as it was.`;
        }
        await deps.resetSession(sessionKey, message);
        return 'Started a fresh conversation. Earlier messages are kept but no longer sent to the model.';
      }
      case 'compact':
        return (await deps.requestCompaction(sessionKey, message)) === 'scheduled'
          ? 'Summarizing the conversation so far; the next answer uses the summary.'
          : 'Nothing to summarize yet.';
      case 'status':
        return status(sessionKey);
      case 'usage':
        return 'Usage is not available here.';
      case 'tasks':
        return deps.tasks ? deps.tasks(message, command.args) : 'Scheduled tasks are not available here.';
      case 'memory':
        return deps.memory ? deps.memory.list(message) : 'Memory is not available here.';
      case 'forget':
        return deps.memory ? deps.memory.forget(message, command.args) : 'Memory is not available here.';
      case 'model':
        return (await model(sessionKey, message, command.args)).text;
      case 'help':
        return ['Commands:', ...COMMAND_DESCRIPTIONS.map(({ command: name, description }) => `/${name} — ${description}`)].join('\n');
    }
  }

  async function usage(message: InboundMessage): Promise<string> {
    return deps.usageReport ? deps.usageReport(message) : 'Usage is not available here.';
  }

  async function status(sessionKey: string): Promise<string> {
    const [usage, depth, mcp, chosen] = await Promise.all([
      deps.sessionUsage(sessionKey),
      deps.queueDepth(sessionKey),
      // the MCP line is a courtesy: Redis failing to say it leaves it out, not the answer
      deps.mcpStatus ? deps.mcpStatus(sessionKey).catch(() => undefined) : undefined,
      deps.models ? currentChoice(deps.models, sessionKey) : undefined,
    ]);
    const { provider, name, contextWindow } = chosen ?? (typeof deps.model === 'function' ? deps.model(sessionKey) : deps.model);
    const used = usage?.estimatedContextTokens ?? 0;
    const fill = contextWindow > 0 ? Math.round((used / contextWindow) * 100) : 0;
    // Each number says what it counts: "in" adds up every call's whole prompt, so it dwarfs the context estimate.
    const chosenHere = chosen !== undefined && chosen.key !== deps.models?.choices(sessionKey)[0]?.key;
    return [
      `Model: ${provider}/${name}${chosenHere ? (deps.models?.scope(sessionKey) === 'chat' ? " (chosen for the whole chat with /model: the chat's)" : ' (chosen with /model)') : ''}`,
      `Tokens used: ${number.format(usage?.inputTokens ?? 0)} in, ${number.format(usage?.outputTokens ?? 0)} out in this session ` +
        `(in: everything sent to the model, added up over all its calls, each of which sends the instructions, tools and conversation again; out: everything it wrote); ` +
        `cost $${(usage?.costUsd ?? 0).toFixed(4)}; prompt cache: ${number.format(usage?.cacheReadTokens ?? 0)} read, ${number.format(usage?.cacheWriteTokens ?? 0)} written`,
      `Context: ~${number.format(used)} of ${number.format(contextWindow)} tokens (${fill}%): ~${number.format(used)} is the conversation the next message starts from ` +
        `(an estimate, before the instructions and tools); ${number.format(contextWindow)} is the most the model takes in at once`,
      `Queue: ${depth.active} running, ${depth.pending} waiting${depth.paused ? '; turns are paused by an operator: what waits starts when they resume them' : ''}`,
      ...(usage?.media?.files ? [mediaLine(usage.media)] : []),
      ...(mcp ? [mcp] : []),
    ].join('\n');
  }
}

export type CommandHandler = ReturnType<typeof createCommandHandler>;

function mediaLine(media: NonNullable<SessionUsage['media']>): string {
  const megabytes = (media.bytes / (1024 * 1024)).toFixed(media.bytes < 1024 * 1024 ? 2 : 1);
  const transcribed = media.transcriptions > 0 ? `; ${media.transcriptions} voice message(s) transcribed in ${(media.transcriptionMs / 1000).toFixed(1)} s` : '';
  return `Attachments: ${media.files} file(s), ${megabytes} MB downloaded${transcribed}`;
}
