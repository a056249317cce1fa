import { BotError } from './errors.js';
import type { Channel } from './channel.js';
import type { ConversationRef } from './inbound-message.js';

/** The running channels, found by the conversation a reply belongs to. */
export class ChannelRegistry {
  private readonly channels = new Map<string, Channel>();

  add(channel: Channel): void {
    this.channels.set(`${channel.name}:${channel.accountId}`, channel);
  }

  for(conversation: Pick<ConversationRef, 'channel' | 'accountId'>): Channel {
    const channel = this.channels.get(`${conversation.channel}:${conversation.accountId}`);
    if (!channel) throw new BotError('config', `no channel ${conversation.channel} for account ${conversation.accountId}`);
    return channel;
  }

  all(): Channel[] {
    return [...this.channels.values()];
  }
}
