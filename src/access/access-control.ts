import type { DmPolicy } from '../config/app-config.js';
import type { ChannelName, InboundMessage } from '../core/inbound-message.js';
import { ACCESS_MESSAGES } from './messages.js';
import type { PairingService } from './pairing.js';

export type AccessDecision = { kind: 'allow' } | { kind: 'deny'; reason: string; notice?: string };

export interface AccessControlOptions {
  dmPolicy: DmPolicy;
  /** `channel:userId`: always allowed to DM (allowlist and pairing policies). */
  allowFrom: string[];
  /** `channel:chatId`; non-empty: groups not listed are ignored. */
  groupAllowlist: string[];
  /** Required by DM_POLICY=pairing. */
  pairing?: PairingService | undefined;
  clock?: () => number;
}

export interface AccessControl {
  /** Whether this message may reach the bot at all (before commands, context and the queue). */
  admit(message: InboundMessage): Promise<AccessDecision>;
  /** Whether a DM from this user would be admitted now, without side effects (no pairing code is issued). */
  mayDirectMessage(channel: ChannelName, userId: string): Promise<boolean>;
}

/** Who may talk to the bot: DM_POLICY (open, allowlist, pairing, disabled) for DMs, GROUP_ALLOWLIST for groups. */
export function createAccessControl(options: AccessControlOptions): AccessControl {
  const allowFrom = new Set(options.allowFrom);
  const groups = new Set(options.groupAllowlist);
  const clock = options.clock ?? Date.now;
  if (options.dmPolicy === 'pairing' && !options.pairing) throw new Error('DM_POLICY=pairing needs the pairing service');

  async function admitDm(message: InboundMessage): Promise<AccessDecision> {
    const { channel } = message.conversation;
    const userId = message.sender.id;
    switch (options.dmPolicy) {
      case 'open':
        return { kind: 'allow' };
      case 'disabled':
        return { kind: 'deny', reason: 'direct messages are disabled' };
      case 'allowlist':
        return allowFrom.has(`${channel}:${userId}`) ? { kind: 'allow' } : { kind: 'deny', reason: 'sender not on the allowlist' };
      case 'pairing': {
        const pairing = options.pairing!;
        if (allowFrom.has(`${channel}:${userId}`) || (await pairing.isApproved(channel, userId))) return { kind: 'allow' };
        const result = await pairing.request({
          channel,
          accountId: message.conversation.accountId,
          userId,
          userName: message.sender.name ?? message.sender.username,
        });
        if (result.kind === 'full') return { kind: 'deny', reason: 'pairing: too many pending requests', notice: ACCESS_MESSAGES.pairingFull() };
        const minutesLeft = Math.max(1, Math.ceil((result.request.expiresAt.getTime() - clock()) / 60_000));
        return { kind: 'deny', reason: `pairing: code ${result.kind}`, notice: ACCESS_MESSAGES.pairingCode(result.request.code, minutesLeft) };
      }
    }
  }

  return {
    async mayDirectMessage(channel, userId) {
      switch (options.dmPolicy) {
        case 'open':
          return true;
        case 'disabled':
          return false;
        case 'allowlist':
          return allowFrom.has(`${channel}:${userId}`);
        case 'pairing':
          return allowFrom.has(`${channel}:${userId}`) || (await options.pairing!.isApproved(channel, userId));
      }
    },
    async admit(message) {
      const { conversation } = message;
      if (conversation.chatType === 'group') {
        if (groups.size > 0 && !groups.has(`${conversation.channel}:${conversation.chatId}`)) return { kind: 'deny', reason: 'group not on the allowlist' };
        return { kind: 'allow' };
      }
      return admitDm(message);
    },
  };
}
