import type { InboundOutcome, InboundSink } from '../core/channel.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { contextKeyOf, sessionKeyOf } from '../core/session-key.js';
import { parseCommand, type CommandHandler } from '../commands/index.js';
import type { Logger } from '../observability/logger.js';
import type { GroupContext } from '../queue/group-context.js';
import type { InboundDedupe } from '../queue/inbound-dedupe.js';
import type { InboundQueue } from '../queue/inbound-queue.js';

export interface AccessPolicy {
  dmPolicy: 'open' | 'allowlist' | 'disabled';
  /** `channel:userId` entries. */
  allowFrom: string[];
  groupRequireMention: boolean;
}

export interface InboundHandlerOptions {
  queue: InboundQueue;
  commands: CommandHandler;
  groupContext: GroupContext;
  dedupe: InboundDedupe;
  policy: AccessPolicy;
  logger: Logger;
}

/** The one path every transport ends in: access, commands now, unaddressed group chatter kept, the rest queued. */
export function createInboundHandler(options: InboundHandlerOptions): InboundSink {
  const { queue, commands, groupContext, dedupe, policy, logger } = options;
  const allowed = new Set(policy.allowFrom);

  return async function handleInbound(message: InboundMessage): Promise<InboundOutcome> {
    const { conversation } = message;
    if (conversation.chatType === 'dm') {
      if (policy.dmPolicy === 'disabled') return { kind: 'ignored', reason: 'direct messages are disabled' };
      if (policy.dmPolicy === 'allowlist' && !allowed.has(`${conversation.channel}:${message.sender.id}`)) {
        return { kind: 'ignored', reason: 'sender not on the allowlist' };
      }
    }
    const command = parseCommand(message.text);
    const addressed = message.addressed || !policy.groupRequireMention;
    const sessionKey = sessionKeyOf(message);
    try {
      if (command && addressed) {
        if (!(await dedupe.claim(message.dedupeKey, 'command'))) return { kind: 'duplicate' };
        try {
          await commands(command, message);
        } catch (error) {
          logger.error({ err: error, command: command.name, sessionKey }, 'command failed');
        }
        return { kind: 'command', command: command.name };
      }
      if (!addressed) {
        if (!(await dedupe.claim(message.dedupeKey, 'context'))) return { kind: 'duplicate' };
        await groupContext.remember(contextKeyOf(message), {
          senderName: message.sender.name ?? message.sender.username ?? message.sender.id,
          text: message.text,
          sentAt: message.sentAt,
        });
        return { kind: 'ignored', reason: 'not addressed' };
      }
    } catch (error) {
      await dedupe.release(message.dedupeKey).catch(() => undefined);
      logger.error({ err: error, sessionKey }, 'could not handle inbound message');
      return { kind: 'rejected', reason: 'redis unavailable' };
    }
    try {
      const result = await queue.submit(message);
      return result.kind === 'duplicate' ? { kind: 'duplicate' } : { kind: 'queued', sessionKey };
    } catch (error) {
      logger.error({ err: error, sessionKey }, 'could not queue inbound message');
      return { kind: 'rejected', reason: 'queue unavailable' };
    }
  };
}
