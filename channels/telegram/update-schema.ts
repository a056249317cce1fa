import { Type } from '@sinclair/typebox';
import type { Update } from 'grammy/types';
import { createPayloadCheck, Droppable } from '../shared/index.js';

const Entity = Type.Object({
  type: Type.String(),
  offset: Type.Integer(),
  length: Type.Integer(),
  user: Type.Optional(Type.Object({ id: Type.Integer() })),
});

const FileFields = {
  file_id: Type.String(),
  file_unique_id: Droppable(Type.String()),
  file_size: Droppable(Type.Number()),
  mime_type: Droppable(Type.String()),
  file_name: Droppable(Type.String()),
  duration: Droppable(Type.Number()),
};
const PhotoSize = Type.Object({ file_id: Type.String(), width: Droppable(Type.Number()), height: Droppable(Type.Number()), file_size: Droppable(Type.Number()) });

const Sender = Type.Object({
  id: Type.Integer(),
  is_bot: Type.Boolean(),
  first_name: Droppable(Type.String()),
  last_name: Droppable(Type.String()),
  username: Droppable(Type.String()),
});

/**
 * The fields of a Bot API `Update` the channel reads (https://core.telegram.org/bots/api#update). Needed:
 * what identifies the message, its chat, its sender, its text and its topic. Droppable: what only decorates
 * it (names, the chat title, the date, entities, the message it replies to) and malformed files or album ids
 * (the words still get an answer).
 */
const UpdateSchema = Type.Object({
  update_id: Type.Integer(),
  message: Type.Optional(
    Type.Object({
      message_id: Type.Integer(),
      date: Droppable(Type.Number()),
      chat: Type.Object({ id: Type.Integer(), type: Type.String(), title: Droppable(Type.String()) }),
      from: Type.Optional(Sender),
      text: Type.Optional(Type.String()),
      caption: Type.Optional(Type.String()),
      message_thread_id: Type.Optional(Type.Integer()),
      is_topic_message: Droppable(Type.Boolean()),
      entities: Droppable(Type.Array(Entity)),
      caption_entities: Droppable(Type.Array(Entity)),
      photo: Droppable(Type.Array(PhotoSize, { minItems: 1 })),
      document: Droppable(Type.Object(FileFields)),
      voice: Droppable(Type.Object(FileFields)),
      audio: Droppable(Type.Object(FileFields)),
      video_note: Droppable(Type.Object(FileFields)),
      media_group_id: Droppable(Type.String()),
      reply_to_message: Droppable(Type.Object({ message_id: Type.Integer(), from: Type.Optional(Type.Object({ id: Type.Integer() })) })),
      /** Service messages: a topic closed or reopened (its scheduled tasks pause or resume). */
      forum_topic_closed: Droppable(Type.Object({})),
      forum_topic_reopened: Droppable(Type.Object({})),
    }),
  ),
  /** A click on an inline keyboard button (approval requests); a malformed one is dropped like an unknown update. */
  callback_query: Droppable(Type.Object({ id: Type.String(), from: Sender, data: Type.Optional(Type.String()) })),
  /** The bot's own status in a chat changed (removed, blocked, added back); a malformed one is dropped like an unknown update. */
  my_chat_member: Droppable(
    Type.Object({
      chat: Type.Object({ id: Type.Integer(), type: Type.String() }),
      from: Droppable(Sender),
      date: Droppable(Type.Number()),
      new_chat_member: Type.Object({ status: Type.String(), user: Type.Object({ id: Type.Integer() }), is_member: Droppable(Type.Boolean()) }),
    }),
  ),
});

const check = createPayloadCheck(UpdateSchema);

export type CheckedUpdate = { ok: true; update: Update; dropped: string[] } | { ok: false; reason: string };

/** A Telegram update as received (webhook body or getUpdates entry) → the update to normalize, or why it is refused. */
export function checkUpdate(value: unknown): CheckedUpdate {
  const checked = check(value);
  // the schema covers every field normalizeUpdate reads, so the rest of grammY's type is only carried along
  return checked.ok ? { ok: true, update: checked.value as Update, dropped: checked.dropped } : checked;
}
