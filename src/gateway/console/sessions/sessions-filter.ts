import type { ChannelName } from '../../../core/inbound-message.js';
import type { SessionsFilter } from '../../../store/index.js';
import { ConsoleRequestError, type SessionsQueryParameters } from '../query-parameters.js';
import type { SessionsFilterView } from './sessions-page.js';

const CHANNELS: readonly ChannelName[] = ['telegram', 'slack', 'feishu'];

/**
 * The exact filters of the sessions list, written as budgets name users and chats (`user=telegram:42`,
 * `chat=telegram:<bot id>:42`) so that a budget row links to its sessions; `agent=<id>` too.
 */
export function sessionsFilterOf(query: Pick<SessionsQueryParameters, 'user' | 'chat' | 'agent'>): { filter: SessionsFilter; view: SessionsFilterView } | undefined {
  const filter: SessionsFilter = {};
  const parameters: Record<string, string> = {};
  const descriptions: string[] = [];
  if (query.user !== undefined) {
    const [channel, userId] = parts(query.user, 2, 'user', '<channel>:<userId>');
    Object.assign(filter, { channel, userId });
    parameters.user = query.user;
    descriptions.push(`the direct messages of ${channel} user ${userId}`);
  }
  if (query.chat !== undefined) {
    const [channel, accountId, chatId] = parts(query.chat, 3, 'chat', '<channel>:<accountId>:<chatId>');
    if (filter.channel !== undefined && filter.channel !== channel) throw new ConsoleRequestError(400, 'user and chat: of two different channels');
    Object.assign(filter, { channel, accountId, chatId });
    parameters.chat = query.chat;
    descriptions.push(`the sessions of ${channel} chat ${chatId} (account ${accountId})`);
  }
  if (query.agent !== undefined) {
    filter.agentId = query.agent;
    parameters.agent = query.agent;
    descriptions.push(`agent ${query.agent}`);
  }
  if (descriptions.length === 0) return undefined;
  return { filter, view: { parameters, description: descriptions.join('; ') } };
}

/** `count` fields split at the first `count - 1` colons (the last one may hold colons); the first is a channel. */
function parts(value: string, count: number, name: string, shape: string): [ChannelName, ...string[]] {
  const fields: string[] = [];
  let rest = value;
  for (let index = 0; index < count - 1; index += 1) {
    const colon = rest.indexOf(':');
    if (colon <= 0) throw new ConsoleRequestError(400, `${name}: ${shape} expected`);
    fields.push(rest.slice(0, colon));
    rest = rest.slice(colon + 1);
  }
  if (rest === '') throw new ConsoleRequestError(400, `${name}: ${shape} expected`);
  fields.push(rest);
  const [channel, ...ids] = fields;
  if (!CHANNELS.includes(channel as ChannelName)) throw new ConsoleRequestError(400, `${name}: the channel is one of ${CHANNELS.join(', ')}`);
  return [channel as ChannelName, ...ids];
}
