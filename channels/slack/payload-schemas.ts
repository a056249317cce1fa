import { Type } from '@sinclair/typebox';
import { createPayloadCheck, Droppable, type PayloadCheck } from '../shared/index.js';
import type { SlackMessageEvent, SlashCommandFields } from './inbound.js';

/** An Events API envelope: which event it carries; the event's own fields are checked by its type. */
const EventCallbackSchema = Type.Object({
  team_id: Droppable(Type.String()),
  event_id: Droppable(Type.String()),
  event: Type.Object({ type: Type.String(), subtype: Type.Optional(Type.String()) }),
});

/**
 * The fields of a `message` / `app_mention` event the channel reads (https://api.slack.com/events/message).
 * Needed: who, where, which thread, what, and whether it is a bot's or hidden. Droppable: the profile
 * (display names), `channel_type` (inferred from the channel id without it) and `parent_user_id` (a hint).
 */
const MessageEventSchema = Type.Object({
  type: Type.String(),
  subtype: Type.Optional(Type.String()),
  channel: Type.Optional(Type.String()),
  channel_type: Droppable(Type.String()),
  user: Type.Optional(Type.String()),
  bot_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  text: Type.Optional(Type.String()),
  ts: Type.Optional(Type.String()),
  thread_ts: Type.Optional(Type.String()),
  parent_user_id: Droppable(Type.String()),
  hidden: Type.Optional(Type.Boolean()),
  user_profile: Droppable(Type.Object({ display_name: Droppable(Type.String()), real_name: Droppable(Type.String()), name: Droppable(Type.String()) })),
  files: Droppable(
    Type.Array(
      Type.Object({
        id: Type.Optional(Type.String()),
        name: Droppable(Type.String()),
        mimetype: Droppable(Type.String()),
        size: Droppable(Type.Number()),
        url_private_download: Type.Optional(Type.String()),
        url_private: Type.Optional(Type.String()),
        mode: Type.Optional(Type.String()),
        file_access: Type.Optional(Type.String()),
      }),
    ),
  ),
});

/** A slash command: form fields over HTTP (always strings), an object in Socket Mode. */
const SlashCommandSchema = Type.Object({
  command: Type.String(),
  channel_id: Type.String(),
  user_id: Type.String(),
  trigger_id: Type.String(),
  text: Type.Optional(Type.String()),
  channel_name: Droppable(Type.String()),
  user_name: Droppable(Type.String()),
});

/** An interaction: its type, and for `block_actions` who clicked which button where. */
const InteractionSchema = Type.Object({
  type: Type.String(),
  user: Type.Optional(Type.Object({ id: Type.String(), name: Droppable(Type.String()), username: Droppable(Type.String()) })),
  channel: Droppable(Type.Object({ id: Type.String() })),
  container: Droppable(Type.Object({ thread_ts: Droppable(Type.String()) })),
  actions: Type.Optional(Type.Array(Type.Object({ action_id: Type.Optional(Type.String()), value: Type.Optional(Type.String()) }))),
});

/**
 * `assistant_thread_started` and `assistant_thread_context_changed` (https://docs.slack.dev/reference/events/assistant_thread_started):
 * the thread (the app's DM and the thread's ts) is needed; the context (the channel the person views) is a hint.
 */
const AssistantThreadEventSchema = Type.Object({
  type: Type.String(),
  assistant_thread: Type.Object({
    user_id: Droppable(Type.String()),
    channel_id: Type.String({ minLength: 1 }),
    thread_ts: Type.String({ minLength: 1 }),
    context: Droppable(
      Type.Object({
        channel_id: Droppable(Type.String()),
        team_id: Droppable(Type.String()),
        enterprise_id: Droppable(Type.Union([Type.String(), Type.Null()])),
      }),
    ),
  }),
});

const checkEnvelope = createPayloadCheck(EventCallbackSchema);
const checkMessage = createPayloadCheck(MessageEventSchema);

export interface CheckedEventCallback {
  eventId: string | undefined;
  event: SlackMessageEvent;
}

/**
 * An `event_callback` body → its event, with the message fields checked when `readsMessage` says the bot
 * reads this kind of event (other event types, where `user` or `channel` may be objects, pass as they are).
 */
export function checkEventCallback(body: unknown, readsMessage: (type: string, subtype: string | undefined) => boolean): PayloadCheck<CheckedEventCallback> {
  const envelope = checkEnvelope(body);
  if (!envelope.ok) return envelope;
  const { event } = envelope.value;
  const eventId = envelope.value.event_id;
  if (!readsMessage(event.type, event.subtype)) return { ok: true, value: { eventId, event: event as SlackMessageEvent }, dropped: envelope.dropped };
  const message = checkMessage(event);
  if (!message.ok) return { ok: false, reason: `/event${message.reason}` };
  return { ok: true, value: { eventId, event: message.value as SlackMessageEvent }, dropped: [...envelope.dropped, ...message.dropped.map((path) => `/event${path}`)] };
}

export const checkSlashCommand: (fields: unknown) => PayloadCheck<SlashCommandFields> = createPayloadCheck(SlashCommandSchema);
export const checkInteraction = createPayloadCheck(InteractionSchema);
export const checkAssistantThreadEvent = createPayloadCheck(AssistantThreadEventSchema);
