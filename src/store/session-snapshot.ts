import type { MessagePart, MessageRole } from '../core/chat-message.js';
import { chatKeyOfSessionKey } from '../core/session-key.js';
import { runStatement, type StoreDatabase } from './database.js';

/** What a turn starts from: its session (undefined: no row yet) and its chat's `/model` choice, read together. */
export interface SessionStart {
  session: SessionSnapshot | undefined;
  /** The chat's `/model` choice (`provider:model`, store/schema/chat-models.ts), with or without a session row. */
  chatModel: string | undefined;
}

/** A session as a turn starts from it: its id, the latest summary of the current conversation and the messages after it. */
export interface SessionSnapshot {
  sessionId: string;
  /** The conversation the history is of: the one asked for, or the session's current one. */
  conversation: number;
  summary: string | undefined;
  /** `/model`'s choice (`provider:model`); undefined: the agent's own model. */
  model: string | undefined;
  /** Oldest first, at most the `limit` newest. */
  history: SnapshotMessage[];
}

export interface SnapshotMessage {
  seq: number;
  role: MessageRole;
  parts: MessagePart[];
  createdAt: Date;
  /** Stored, but left out of the model's context (see agent/history/omitted-messages.ts). */
  omittedFromContext: boolean;
}

/**
 * ONE statement (a read, prepared once per connection): the session by key, the newest summary of the conversation
 * (`$3`, the turn's; null: the session's current one) and the newest messages of that conversation after both,
 * aggregated into one JSON value so a long history is one row. A conversation newer than the stored one (a turn
 * after /new, before anything of it was stored) has no history yet. The chat's model choice (`$4`, the chat's key)
 * comes in the same row, which is there even when the session is not (a new topic of a chat that chose a model).
 */
const SNAPSHOT = `
with session as (
  select id, history_start_seq, coalesce($3::integer, conversation) as conversation, model from sessions where key = $1::text
),
summary as (
  select summaries.summary, summaries.covers_up_to_seq
    from summaries, session
   where summaries.session_id = session.id and summaries.covers_up_to_seq >= session.history_start_seq
     and summaries.conversation = session.conversation
   order by summaries.covers_up_to_seq desc, summaries.created_at desc
   limit 1
),
recent as (
  select messages.seq, messages.role, messages.parts, messages.created_at, messages.omitted_from_context
    from messages, session
   where messages.session_id = session.id
     and messages.seq >= greatest(session.history_start_seq, coalesce((select covers_up_to_seq + 1 from summary), 0))
     and messages.conversation = session.conversation
   order by messages.seq desc
   limit $2::integer
)
select session.id as session_id, session.conversation, session.model,
       (select chat_models.model from chat_models where chat_models.chat_key = $4::text) as chat_model,
       (select summary from summary) as summary,
       coalesce((select json_agg(json_build_array(seq, role, parts, created_at, omitted_from_context) order by seq) from recent), '[]'::json) as messages
  from (select 1) as one left join session on true`;

type Row = {
  session_id: string | null;
  conversation: number;
  model: string | null;
  chat_model: string | null;
  summary: string | null;
  messages: Array<[number, MessageRole, MessagePart[], string, boolean]>;
};

/** `conversation`: the turn's (see SNAPSHOT); undefined: the session's current one. */
export async function loadSessionSnapshot(db: StoreDatabase, key: string, limit: number, conversation?: number): Promise<SessionStart> {
  const [row] = await runStatement<Row>(db, SNAPSHOT, [key, limit, conversation ?? null, chatKeyOfSessionKey(key)]);
  const chatModel = row?.chat_model ?? undefined;
  if (!row?.session_id) return { session: undefined, chatModel };
  return { session: sessionOf(row, row.session_id), chatModel };
}

function sessionOf(row: Row, sessionId: string): SessionSnapshot {
  const messages = typeof row.messages === 'string' ? (JSON.parse(row.messages) as Row['messages']) : row.messages;
  return {
    sessionId,
    conversation: Number(row.conversation),
    summary: row.summary ?? undefined,
    model: row.model ?? undefined,
    history: messages.map(([seq, role, parts, createdAt, omittedFromContext]) => ({ seq: Number(seq), role, parts, createdAt: new Date(createdAt), omittedFromContext })),
  };
}
