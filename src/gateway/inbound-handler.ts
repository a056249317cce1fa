import { ACCESS_MESSAGES, type AccessControl, type UserRateLimiter } from '../access/index.js';
import type { InboundOutcome, InboundSink } from '../core/channel.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { contextKeyOf, sessionKeyOf } from '../core/session-key.js';
import { parseCommand, type CommandHandler } from '../commands/index.js';
import type { Logger } from '../observability/logger.js';
import type { AlbumMarks } from '../redis/album-marks.js';
import type { GroupContext } from '../redis/group-context.js';
import type { SessionQueue } from '../redis/session-queue.js';
import type { InboundQueue } from '../queue/inbound-queue.js';

/** What the configuration says about the chat a message comes from (see config/chat-settings.ts). */
export interface InboundChatSettings {
  /** The agent bound to this chat; replaces the channel's default agent on the message. */
  agentId: string;
  requireMention: boolean;
}

export interface InboundHandlerOptions {
  queue: InboundQueue;
  commands: CommandHandler;
  groupContext: GroupContext;
  /** Once-only handling of what never reaches the queue (commands, chatter, refusals), on the queue's seen keys. */
  dedupe: Pick<SessionQueue, 'claimSeen' | 'forgetSeen'>;
  access: AccessControl;
  chatSettings(message: InboundMessage): InboundChatSettings;
  /** Albums addressed in a group (their uncaptioned parts join the turn); absent: each part stands alone. */
  albums?: AlbumMarks | undefined;
  /** USER_RATE_LIMIT; absent or limit 0: no limit. */
  rateLimiter?: UserRateLimiter | undefined;
  /** A plain-text answer from the gateway itself (pairing code, rate limit notice). */
  notify(message: InboundMessage, text: string): Promise<void>;
  logger: Logger;
}

/**
 * The one path every transport ends in: the chat's agent and settings, access control, commands now,
 * unaddressed group chatter kept, the per-user rate limit, the rest queued.
 */
export function createInboundHandler(options: InboundHandlerOptions): InboundSink {
  const { queue, commands, groupContext, dedupe, access, rateLimiter, logger } = options;

  async function notifyOnce(message: InboundMessage, text: string): Promise<void> {
    try {
      await options.notify(message, text);
    } catch (error) {
      logger.warn({ err: error, channel: message.conversation.channel }, 'could not send an access notice');
    }
  }

  return async function handleInbound(incoming: InboundMessage): Promise<InboundOutcome> {
    const chat = options.chatSettings(incoming);
    const message = chat.agentId === incoming.agentId ? incoming : { ...incoming, agentId: chat.agentId };
    const sessionKey = sessionKeyOf(message);
    try {
      const decision = await access.admit(message);
      if (decision.kind === 'deny') {
        if (decision.notice && (await dedupe.claimSeen(sessionKey, message.dedupeKey, 'access'))) await notifyOnce(message, decision.notice);
        logger.debug({ sessionKey, reason: decision.reason }, 'inbound message refused by access control');
        return { kind: 'ignored', reason: decision.reason };
      }
    } catch (error) {
      logger.error({ err: error, sessionKey }, 'access check failed');
      return { kind: 'rejected', reason: 'access check unavailable' };
    }
    const command = parseCommand(message.text);
    let addressed = message.addressed || !chat.requireMention;
    try {
      if (message.mediaGroupId && options.albums) {
        if (addressed) await options.albums.markAddressed(message.mediaGroupId);
        else addressed = await options.albums.isAddressed(message.mediaGroupId);
      }
      if (command && addressed) {
        if (!(await dedupe.claimSeen(sessionKey, message.dedupeKey, 'command'))) return { kind: 'duplicate' };
        try {
          await commands(command, message);
        } catch (error) {
          logger.error({ err: error, command: command.name, sessionKey }, 'command failed');
        }
        return { kind: 'command', command: command.name };
      }
      if (!addressed) {
        if (!(await dedupe.claimSeen(sessionKey, message.dedupeKey, 'context'))) return { kind: 'duplicate' };
        await groupContext.remember(contextKeyOf(message), {
          senderName: message.sender.name ?? message.sender.username ?? message.sender.id,
          text: message.text,
          sentAt: message.sentAt,
        });
        return { kind: 'ignored', reason: 'not addressed' };
      }
      if (rateLimiter && rateLimiter.limit > 0) {
        const rate = await rateLimiter.take(`${message.conversation.channel}:${message.sender.id}`, message.dedupeKey);
        if (!rate.allowed) {
          if (rate.notify) await notifyOnce(message, ACCESS_MESSAGES.rateLimited(rateLimiter.limit));
          logger.info({ sessionKey, retryAfterMs: rate.retryAfterMs }, 'user rate limit reached; message dropped');
          return { kind: 'ignored', reason: 'rate limited' };
        }
      }
    } catch (error) {
      await dedupe.forgetSeen(sessionKey, message.dedupeKey).catch(() => undefined);
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
