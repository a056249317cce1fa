import type { ConversationRef, DeliveryReceipt, LiveReply, LiveReplyOptions as PreviewOptions } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { previewCard, renderAnswer, renderCards } from './format.js';
import type { ChannelMemory } from './inbound-pipeline.js';
import type { MessagesApi } from './messages-api.js';
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
 * A card that grows while the model writes: sent as a reply at the first update, then replaced in place
 * (`im.message.patch`) at most once per interval with the latest text (intermediate texts are skipped).
 * `finish` patches the card to the final answer's first card (the rest follow as replies); if that patch
 * fails the card is deleted and the answer sent normally. `discard` deletes the card. No CardKit streaming:
 * patching a whole card needs no extra permission (cardkit:card:write) and works on Feishu and Lark alike.
 * The card is sent under a `uuid` derived from the turn, so a takeover that streams again gets the same card
 * back from Feishu instead of a second one; a card an earlier holder recorded (`live.adopt`) is used as is.
 */
export function openLiveReply(options: LiveReplyOptions): LiveReply {
  const { api, outbound, memory, to, logger } = options;
  const intervalMs = options.intervalMs ?? LIVE_EDIT_INTERVAL_MS;
  let latest = '';
  let version = 0;
  let shownVersion = 0;
  let shownContent: string | undefined;
  let cardId: string | undefined = options.live?.adopt;
  let lastEditAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let editing: Promise<void> | undefined;
  let closed = false;

  async function edit(): Promise<void> {
    const rendering = version;
    const card = previewCard(latest);
    if (card === undefined || card.content === shownContent) {
      shownVersion = rendering;
      return;
    }
    lastEditAt = Date.now();
    try {
      if (cardId === undefined) {
        const key = options.live?.key;
        cardId = await api.reply(to.messageId, card, key !== undefined ? partUuid(key, 0) : undefined);
        await memory.rememberBotMessage(cardId);
        options.live?.onPreview?.(cardId);
      } else {
        await api.patch(cardId, card.content);
      }
      shownContent = card.content;
    } catch (error) {
      logger.warn({ messageId: to.messageId, error: String(error) }, 'feishu live reply edit failed');
    }
    shownVersion = rendering;
  }

  function schedule(): void {
    if (closed || timer !== undefined || editing !== undefined || shownVersion === version) return;
    timer = setTimeout(() => {
      timer = undefined;
      editing = edit().finally(() => {
        editing = undefined;
        schedule();
      });
    }, Math.max(0, lastEditAt + intervalMs - Date.now()));
  }

  async function settle(): Promise<void> {
    closed = true;
    clearTimeout(timer);
    timer = undefined;
    await editing;
  }

  async function removeCard(): Promise<void> {
    if (cardId === undefined) return;
    const id = cardId;
    cardId = undefined;
    await api.remove(id).catch((error: unknown) => logger.warn({ messageId: id, error: String(error) }, 'feishu live reply card not removed'));
  }

  return {
    update(textSoFar) {
      if (closed || textSoFar === latest) return;
      latest = textSoFar;
      version += 1;
      // the model may be writing NO_REPLY: show nothing until the text can no longer be that
      if (mayBecomeSilent(textSoFar)) return;
      schedule();
    },

    async finish(finalMarkdown, progress): Promise<DeliveryReceipt> {
      await settle();
      const cards = renderCards(finalMarkdown);
      if (cardId === undefined || cards.length === 0) {
        await removeCard();
        return outbound.deliver(to, renderAnswer(finalMarkdown), progress);
      }
      const id = cardId;
      let editFailed = false;
      const first = {
        messageId: id,
        edit: async (message: { content: string }) => {
          if (message.content === shownContent) return;
          try {
            await api.patch(id, message.content);
          } catch (error) {
            editFailed = true;
            throw error;
          }
        },
      };
      try {
        const receipt = await outbound.deliver(to, cards, progress, first);
        cardId = undefined;
        return receipt;
      } catch (error) {
        if (!editFailed) throw error;
        logger.warn({ messageId: to.messageId, error: String(error) }, 'feishu live reply final edit failed, sending the answer normally');
        await removeCard();
        return outbound.deliver(to, renderAnswer(finalMarkdown), progress && { ...progress, inDoubt: undefined });
      }
    },

    async discard() {
      await settle();
      await removeCard();
    },
  };
}

function mayBecomeSilent(text: string): boolean {
  const core = text.trim().replace(/^[\s.,!?;:'"`*]+|[\s.,!?;:'"`*]+$/g, '').toUpperCase();
  return 'NO_REPLY'.startsWith(core);
}
