import type { ConversationRef, LiveReply, LiveReplyOptions as PreviewOptions } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { openPlatformLiveReply } from '../shared/index.js';
import { previewCard, renderAnswer, renderCards } from './format.js';
import type { ChannelMemory } from './inbound-pipeline.js';
import type { MessagesApi, OutgoingMessage } from './messages-api.js';
import { partUuid, type FeishuOutbound } from './outbound.js';

/** Feishu allows 5 updates a second on one message; one a second reads calmly and leaves room for the final edit. */
export const LIVE_EDIT_INTERVAL_MS = 1000;

export interface LiveReplyOptions {
  api: MessagesApi;
  outbound: FeishuOutbound;
  memory: ChannelMemory;
  to: ConversationRef;
  logger: Logger;
  intervalMs?: number;
  /** The turn's preview key (its card's `uuid`), a card an earlier holder left, and who records the card. */
  live?: PreviewOptions;
}

/**
 * A card that grows while the model writes (the shared "finished in place" state machine): sent as a reply
 * at the first update, then replaced in place (`im.message.patch`) at most once per interval with the latest
 * text; a failed patch waits for newer text. `finish` patches the card to the final answer's first card (the
 * rest follow as replies); if that patch fails the card is deleted and the answer sent normally. No CardKit
 * streaming: patching a whole card needs no extra permission (cardkit:card:write) and works on Feishu and Lark
 * alike. The card is sent under a `uuid` derived from the turn, so a takeover that streams again gets the same
 * card back from Feishu instead of a second one; a card an earlier holder recorded (`live.adopt`) is used as is.
 */
export function openLiveReply(options: LiveReplyOptions): LiveReply {
  const { api, outbound, memory, to, logger } = options;
  const intervalMs = options.intervalMs ?? LIVE_EDIT_INTERVAL_MS;
  const key = options.live?.key;
  let lastEditAt = 0;
  return openPlatformLiveReply<OutgoingMessage, OutgoingMessage>(
    {
      previewOf: previewCard,
      samePreview: (shown, wanted) => shown.content === wanted.content,
      waitMs: () => Math.max(0, lastEditAt + intervalMs - Date.now()),
      async showPreview(card, id, posted) {
        lastEditAt = Date.now();
        try {
          if (id === undefined) {
            const cardId = await api.reply(to.messageId, card, key !== undefined ? partUuid(key, 0) : undefined);
            posted(cardId);
            await memory.rememberBotMessage(cardId);
          } else {
            await api.patch(id, card.content);
          }
          return 'shown';
        } catch (error) {
          logger.warn({ messageId: to.messageId, error: String(error) }, 'feishu live reply edit failed');
          return 'wait';
        } finally {
          // the interval runs from when Feishu answered: a slow call (the first loads the SDK) is not followed by an edit at once
          lastEditAt = Date.now();
        }
      },
      finalParts: renderCards,
      deliverParts: (cards, progress, first) => outbound.deliver(to, cards, progress, first && { messageId: first.id, edit: first.edit }),
      deliverNormally: (markdown, progress) => outbound.deliver(to, renderAnswer(markdown), progress),
      async editPreview(id, card, shown) {
        if (card.content === shown?.content) return;
        await api.patch(id, card.content);
      },
      async deletePreview(id) {
        await api.remove(id).catch((error: unknown) => logger.warn({ messageId: id, error: String(error) }, 'feishu live reply card not removed'));
      },
      finalEditFailed: (error) => logger.warn({ messageId: to.messageId, error: String(error) }, 'feishu live reply final edit failed, sending the answer normally'),
      removePreviewFirst: true,
    },
    options.live,
  );
}
