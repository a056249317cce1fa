import { Type } from '@sinclair/typebox';
import { createPayloadCheck, Droppable } from '../shared/index.js';

/**
 * The fields of an `im.message.receive_v1` event (schema 2.0 `event`) the channel reads
 * (https://open.feishu.cn/document/server-docs/im-v1/message/events/receive). Needed: who sent it, which
 * message in which chat, its type and content. Droppable: the reply target, the time and the mentions,
 * which only decorate it. A missing `message` is another kind of event (ignored), not a wrong one.
 */
export const checkMessageEvent = createPayloadCheck(
  Type.Object({
    sender: Type.Optional(
      Type.Object({
        sender_type: Type.Optional(Type.String()),
        // open_id is who the sender is to this app; the other two are only fallbacks for odd deliveries
        sender_id: Type.Optional(Type.Object({ open_id: Type.Optional(Type.String()), user_id: Droppable(Type.String()), union_id: Droppable(Type.String()) })),
      }),
    ),
    message: Type.Optional(
      Type.Object({
        message_id: Type.String(),
        chat_id: Type.String(),
        chat_type: Type.String(),
        message_type: Type.String(),
        content: Type.String(),
        parent_id: Droppable(Type.String()),
        create_time: Droppable(Type.String()),
        mentions: Droppable(
          Type.Array(Type.Object({ key: Type.String(), id: Droppable(Type.Object({ open_id: Droppable(Type.String()) })), name: Droppable(Type.String()) })),
        ),
      }),
    ),
  }),
);
