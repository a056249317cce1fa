import type { Channel } from '../core/channel.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { prepareMedia, type MediaDependencies, type MessageMedia } from './prepare-media.js';

/** The attachments of one turn's messages, prepared at turn time in the worker. */
export interface MediaProcessor {
  /** By the message's dedupe key; messages without attachments are absent. */
  prepareTurn(messages: InboundMessage[], turn: { channel: Channel; accountId: string; workspace: string; modelTakesImages: boolean; signal: AbortSignal }): Promise<Map<string, MessageMedia>>;
}

export function createMediaProcessor(deps: MediaDependencies): MediaProcessor {
  return {
    async prepareTurn(messages, turn) {
      const prepared = new Map<string, MessageMedia>();
      const imageBudget = { left: deps.config.maxImages, visionRefused: false };
      for (const message of messages) {
        if (!message.attachments?.length) continue;
        prepared.set(message.dedupeKey, await prepareMedia(deps, message.attachments, { ...turn, imageBudget }));
      }
      return prepared;
    },
  };
}

/**
 * The user's words with what their files said: transcripts first (they are what was said), then the words,
 * then the notes (documents, image placeholders, failures). Several messages sent as one (a Telegram album)
 * are one text: every part's transcript, every caption, every part's note.
 */
export function composeUserText(messages: Array<{ text: string; media?: MessageMedia | undefined }>): string {
  const spoken = messages.flatMap((message) => message.media?.spoken ?? []);
  const notes = messages.flatMap((message) => message.media?.notes ?? []);
  return [...spoken, ...messages.map((message) => message.text), ...notes].filter((block) => block.trim() !== '').join('\n\n');
}

/** The reply with one sentence per attachment that could not be used, before the answer. */
export function withMediaNotices(reply: string, notices: string[]): string {
  if (notices.length === 0) return reply;
  const lead = notices.join(' ');
  return reply.trim() === '' ? lead : `${lead}\n\n${reply}`;
}
