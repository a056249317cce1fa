import type { Channel } from '../core/channel.js';
import type { OutboundFile } from '../core/attachment.js';
import type { ConversationRef } from '../core/inbound-message.js';
import type { DeliveryRecords, TurnLease } from './delivery-records.js';

/**
 * `send_file` exactly once per turn and tool call, across workers: each file is a stream of the turn's delivery
 * record (`file:<toolCallId>`), with its intent recorded before the platform call. A takeover that finds the
 * file in doubt asks the platform whether it went out (see DeliveryProgress) instead of sending it blindly.
 */
export class FileSendRecords {
  constructor(private readonly deliveries: DeliveryRecords) {}

  /** The `sendFile` a turn's tools get: through the turn's channel, recorded per tool call (read back only when `resumed`). */
  sender(channel: Channel, to: ConversationRef, lease: TurnLease, resumed: boolean) {
    return async (file: OutboundFile, toolCallId: string): Promise<{ messageIds: string[]; alreadySent: boolean }> => {
      const stream = `file:${toolCallId}` as const;
      const state = resumed ? await this.deliveries.stream(lease, stream) : undefined;
      const progress = this.deliveries.progress({ lease, stream, channel: to.channel, state });
      const receipt = await channel.sendFile(to, file, progress);
      // nothing announced now: an earlier holder sent it (recorded, or found in the chat)
      return { messageIds: receipt.messageIds, alreadySent: state !== undefined && progress.announced === 0 };
    };
  }
}
