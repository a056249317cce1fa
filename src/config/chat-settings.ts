import { mergeLimits, type BudgetLimits } from '../budgets/budget-limits.js';
import { SizeBoundedLru } from '../core/size-bounded-lru.js';
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

/** Entries each map keeps, the first kept the first dropped: a key and a reference each (the settings are shared). */
const REMEMBERED = 4_096;

/**
 * Resolves the agent and the chat settings of a conversation from the configuration. Account names
 * are learnt as channels start (the platform account id comes from `getMe` / `auth.test`).
 */
export class ChatSettingsResolver {
  readonly #accountNames = new Map<string, string>();
  /**
   * Settings resolved so far, by chat and by session key: a message asks for them four to six times (the gateway,
   * the queue's mode, the budgets, the turn), and the configuration does not change while the process runs. An
   * account learnt later may change what its chats get: registering one drops them all.
   */
  readonly #resolved = new SizeBoundedLru<Readonly<ChatSettings>>(REMEMBERED);
  /** null: the key names no chat. */
  readonly #bySessionKey = new SizeBoundedLru<Readonly<ChatSettings> | null>(REMEMBERED);
  readonly #distinct = new SizeBoundedLru<Readonly<ChatSettings>>(REMEMBERED);

  constructor(private readonly config: AppConfig) {}

  registerAccount(channel: PlatformName, accountId: string, name: string): void {
    this.#accountNames.set(`${channel}:${accountId}`, name);
    this.#resolved.clear();
    this.#bySessionKey.clear();
    this.#distinct.clear();
  }

  accountNameOf(channel: PlatformName, accountId: string): string | undefined {
    return this.#accountNames.get(`${channel}:${accountId}`);
  }

  /** The chat's settings; the same frozen object while the process knows no new account. */
  resolve(location: ChatLocation): Readonly<ChatSettings> {
    const key = `${location.channel}\u0000${location.accountId}\u0000${location.chatType}\u0000${location.chatId}`;
    let settings = this.#resolved.peek(key);
    if (settings === undefined) {
      settings = this.#shared(this.#resolveAnew(location));
      this.#resolved.set(key, settings, 1);
    }
    return settings;
  }

  /** Chats without settings of their own get the same ones: one object for all of them. */
  #shared(settings: ChatSettings): Readonly<ChatSettings> {
    const content = JSON.stringify(settings);
    let shared = this.#distinct.peek(content);
    if (shared === undefined) {
      shared = Object.freeze(settings);
      this.#distinct.set(content, shared, 1);
    }
    return shared;
  }

  #resolveAnew(location: ChatLocation): ChatSettings {
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
  forSessionKey(sessionKey: string): Readonly<ChatSettings> | undefined {
    let settings = this.#bySessionKey.peek(sessionKey);
    if (settings === undefined) {
      settings = this.#forSessionKeyAnew(sessionKey) ?? null;
      this.#bySessionKey.set(sessionKey, settings, 1);
    }
    return settings ?? undefined;
  }

  #forSessionKeyAnew(sessionKey: string): Readonly<ChatSettings> | undefined {
    const [prefix, agentId, channel, accountId, chatType, chatId] = sessionKey.split(':');
    if (prefix !== 'agent' || !agentId || !accountId || !chatId) return undefined;
    if (channel !== 'telegram' && channel !== 'slack' && channel !== 'feishu') return undefined;
    if (chatType !== 'dm' && chatType !== 'group') return undefined;
    const settings = this.resolve({ channel, accountId, chatType, chatId });
    return settings.agentId === agentId ? settings : this.#shared({ ...settings, agentId });
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
