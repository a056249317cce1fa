import { mergeLimits, type BudgetLimits } from '../budgets/budget-limits.js';
import type { AppConfig, ChatOverrides, PlatformName, QueueMode, StreamingMode } from './app-config.js';

/** Where a message was written: what bindings and overrides are matched against. */
export interface ChatLocation {
  channel: PlatformName;
  /** The platform's account id (bot id, team id, app id), as in session keys. */
  accountId: string;
  chatType: 'dm' | 'group';
  chatId: string;
}

/** What one chat gets, every level applied: defaults < channel < account < group. */
export interface ChatSettings {
  agentId: string;
  /** The configured name of the account, when the account is known. */
  accountName: string | undefined;
  requireMention: boolean;
  streaming: StreamingMode;
  queueMode: QueueMode;
  /** The chat-level prompts (channel, account, group), joined; appended to the agent's prompt. */
  systemPrompt: string | undefined;
  /** Daily USD limits set for this chat's channel, account and group, merged field by field. */
  budgets: BudgetLimits;
}

/**
 * Resolves the agent and the chat settings of a conversation from the configuration. Account names
 * are learnt as channels start (the platform account id comes from `getMe` / `auth.test`).
 */
export class ChatSettingsResolver {
  readonly #accountNames = new Map<string, string>();

  constructor(private readonly config: AppConfig) {}

  registerAccount(channel: PlatformName, accountId: string, name: string): void {
    this.#accountNames.set(`${channel}:${accountId}`, name);
  }

  accountNameOf(channel: PlatformName, accountId: string): string | undefined {
    return this.#accountNames.get(`${channel}:${accountId}`);
  }

  resolve(location: ChatLocation): ChatSettings {
    const { config } = this;
    const accountName = this.accountNameOf(location.channel, location.accountId);
    const account = config.accounts[location.channel].find((candidate) => candidate.name === accountName);
    const channel = config.channelSettings[location.channel];
    const group = location.chatType === 'group' ? channel.groups[location.chatId] : undefined;
    const levels: ChatOverrides[] = [channel.overrides, account?.overrides ?? {}, group ?? {}];
    const pick = <Key extends keyof ChatOverrides>(key: Key): ChatOverrides[Key] =>
      levels.reduce<ChatOverrides[Key]>((value, level) => level[key] ?? value, undefined);
    const prompts = levels.map((level) => level.systemPrompt?.trim()).filter((prompt): prompt is string => Boolean(prompt));
    return {
      agentId: this.agentFor(location, accountName) ?? account?.agentId ?? config.agents[0]!.id,
      accountName,
      requireMention: pick('requireMention') ?? config.groupRequireMention,
      // LLM_STREAM=false: the model does not stream, so nothing can be shown while it writes
      streaming: config.llm.stream ? (pick('streaming') ?? 'dm') : 'off',
      queueMode: pick('queueMode') ?? config.queueMode,
      systemPrompt: prompts.length > 0 ? prompts.join('\n\n') : undefined,
      budgets: mergeLimits(...levels.map((level) => level.budgets)),
    };
  }

  /**
   * The settings of a session from its key (`agent:<id>:<channel>:<accountId>:dm:<userId>` or
   * `…:group:<chatId>[:thread:<id>]`, see core/session-key.ts); the agent is the key's.
   */
  forSessionKey(sessionKey: string): ChatSettings | undefined {
    const [prefix, agentId, channel, accountId, chatType, chatId] = sessionKey.split(':');
    if (prefix !== 'agent' || !agentId || !accountId || !chatId) return undefined;
    if (channel !== 'telegram' && channel !== 'slack' && channel !== 'feishu') return undefined;
    if (chatType !== 'dm' && chatType !== 'group') return undefined;
    return { ...this.resolve({ channel, accountId, chatType, chatId }), agentId };
  }

  /** The most specific binding that matches (chat > account > chat type); the first of equals. */
  private agentFor(location: ChatLocation, accountName: string | undefined): string | undefined {
    let best: { agentId: string; score: number } | undefined;
    for (const binding of this.config.bindings) {
      if (binding.channel !== location.channel) continue;
      if (binding.account !== undefined && binding.account !== accountName) continue;
      if (binding.chatId !== undefined && binding.chatId !== location.chatId) continue;
      if (binding.chatType !== undefined && binding.chatType !== location.chatType) continue;
      const score = (binding.chatId !== undefined ? 4 : 0) + (binding.account !== undefined ? 2 : 0) + (binding.chatType !== undefined ? 1 : 0);
      if (!best || score > best.score) best = { agentId: binding.agentId, score };
    }
    return best?.agentId;
  }
}
