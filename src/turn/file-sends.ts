import type { Redis } from 'ioredis';
import type { Channel } from '../core/channel.js';
import type { OutboundFile } from '../core/attachment.js';
import type { ConversationRef } from '../core/inbound-message.js';

const TTL_SECONDS = 24 * 60 * 60;
const SENDING = 'sending';

/**
 * `send_file` at most once per turn and tool call, across workers: the record is claimed (SET NX) before the
 * platform call and filled with the message ids after. A takeover that finds a claim does not send again,
 * even when the first worker died between the upload and its checkpoint (the upload may have gone out).
 */
export class FileSendRecords {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(turnId: string, toolCallId: string): string {
    return `${this.prefix}:file-sent:${turnId}:${toolCallId}`;
  }

  /** `claimed`: this caller sends; otherwise the ids an earlier attempt recorded (empty if it died mid-call). */
  async claim(turnId: string, toolCallId: string): Promise<{ claimed: true } | { claimed: false; messageIds: string[] }> {
    const key = this.key(turnId, toolCallId);
    if ((await this.redis.set(key, SENDING, 'EX', TTL_SECONDS, 'NX')) === 'OK') return { claimed: true };
    const value = await this.redis.get(key);
    return { claimed: false, messageIds: value && value !== SENDING ? (JSON.parse(value) as string[]) : [] };
  }

  async sent(turnId: string, toolCallId: string, messageIds: string[]): Promise<void> {
    await this.redis.set(this.key(turnId, toolCallId), JSON.stringify(messageIds), 'EX', TTL_SECONDS);
  }

  /** The platform refused (nothing went out): a later attempt may try again. */
  async release(turnId: string, toolCallId: string): Promise<void> {
    await this.redis.del(this.key(turnId, toolCallId));
  }
}

/** The `sendFile` a turn's tools get: through the turn's channel, recorded per tool call. */
export function turnFileSender(records: FileSendRecords, channel: Channel, to: ConversationRef, turnId: string) {
  return async (file: OutboundFile, toolCallId: string): Promise<{ messageIds: string[]; alreadySent: boolean }> => {
    const claim = await records.claim(turnId, toolCallId);
    if (!claim.claimed) return { messageIds: claim.messageIds, alreadySent: true };
    let receipt;
    try {
      receipt = await channel.sendFile(to, file);
    } catch (error) {
      await records.release(turnId, toolCallId).catch(() => undefined);
      throw error;
    }
    await records.sent(turnId, toolCallId, receipt.messageIds);
    return { messageIds: receipt.messageIds, alreadySent: false };
  };
}
