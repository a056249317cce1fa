import type { LlmCallPurpose, TraceSpan } from '../core/trace-span.js';
import { isoTimestamp } from './iso-timestamp.js';
import type { TurnMessage, TurnPerson, TurnRecord } from './turn-record.js';

/**
 * Finished turns as ONE statement (one round trip, one commit, atomic by itself), for one turn or several of
 * different sessions (store/turn-flushes.ts gathers the turns that finish while a flush is on its way):
 * - the runs go in first with ON CONFLICT DO NOTHING; a run that already exists is left out of every later
 *   step, so a retried turn writes nothing;
 * - the sessions UPDATE both locks each written run's session row and claims `next_seq … next_seq + n - 1`.
 *   Under READ COMMITTED a concurrent flush of the same session waits on the row lock and then sees the bumped
 *   `next_seq`, so turns get consecutive, non-interleaved ranges. Two runs of one session never share a
 *   statement (the UPDATE would apply only one of them). It names its rows by key too (`sessions.id = any(…)`,
 *   redundant with the join): PostgreSQL guesses 100 rows for any jsonb_to_recordset, and against that guess a
 *   hash join over a sequential scan of `sessions` looked cheaper than 100 lookups, so every flush read the whole
 *   table (3–10 ms a statement at 10,000 sessions, growing with them); with the array it uses the primary key;
 * - runs, messages and spans arrive as one JSON array each (messages and spans name their run; a message's
 *   `seq` is its place in its turn), turned into rows by jsonb_to_recordset / jsonb_populate_recordset;
 * - a turn carries its conversation (the count of /new it started after; none: the session's): the first turn of a
 *   newer one moves the session's history start to its first message, and every message is stored with its turn's
 *   conversation, so a turn of the old one that flushes late (it ran across /new) is never a newer one's history;
 * - a group's title rides on its session's UPDATE, and senders whose name changed (`record.people`, usually
 *   none: see turn/store-adapter.ts) are upserted in one more step when a run was written, which writes
 *   nothing when the stored names are already these.
 * It returns the ids of the runs it wrote.
 */
const RUNS_AND_MESSAGES = `
with batch as (
  select *
    from jsonb_to_recordset($1::text::jsonb) as run(
           id text, session_id uuid, status text, silent boolean, provider text, model text, iterations integer,
           input_tokens bigint, output_tokens bigint, cache_read_tokens bigint, cache_write_tokens bigint,
           cost_usd double precision, error text, started_at timestamptz, finished_at timestamptz, duration_ms integer,
           delivered_message_ids jsonb, message_count bigint, title text, conversation integer)
),
inserted_run as (
  insert into runs (id, session_id, status, silent, provider, model, iterations, input_tokens, output_tokens,
                    cache_read_tokens, cache_write_tokens, cost_usd, error, started_at, finished_at, duration_ms,
                    delivered_message_ids)
  select id, session_id, status, silent, provider, model, iterations, input_tokens, output_tokens,
         cache_read_tokens, cache_write_tokens, cost_usd, error, started_at, finished_at, duration_ms,
         delivered_message_ids
    from batch
  on conflict (id) do nothing
  returning id
),
claimed as (
  update sessions
     set next_seq = sessions.next_seq + batch.message_count,
         input_tokens = sessions.input_tokens + batch.input_tokens,
         output_tokens = sessions.output_tokens + batch.output_tokens,
         cache_read_tokens = sessions.cache_read_tokens + batch.cache_read_tokens,
         cache_write_tokens = sessions.cache_write_tokens + batch.cache_write_tokens,
         cost_usd = sessions.cost_usd + batch.cost_usd,
         last_model = batch.model,
         title = coalesce(batch.title, sessions.title),
         conversation = greatest(sessions.conversation, coalesce(batch.conversation, sessions.conversation)),
         history_start_seq = case when batch.conversation > sessions.conversation then sessions.next_seq else sessions.history_start_seq end,
         updated_at = now()
    from batch
   where sessions.id = batch.session_id and batch.id in (select id from inserted_run)
     and sessions.id = any(array(select session_id from batch))
  returning batch.id as run_id, sessions.id as session_id, sessions.next_seq - batch.message_count as first_seq,
            coalesce(batch.conversation, sessions.conversation) as conversation
),
inserted_messages as (
  insert into messages (session_id, seq, run_id, role, parts, inbound_key, created_at, attachments, omitted_from_context, conversation)
  select claimed.session_id, claimed.first_seq + message.seq, claimed.run_id,
         message.role, message.parts, message.inbound_key, message.created_at, message.attachments, message.omitted_from_context,
         claimed.conversation
    from claimed
    join jsonb_populate_recordset(null::messages, $2::text::jsonb) as message on message.run_id = claimed.run_id
),
inserted_spans as (
  insert into run_spans (run_id, position, kind, name, iteration, tool_call_id, started_at, duration_ms,
                         input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, is_error,
                         error, output_preview, input, parent_tool_call_id, prompt_split)
  select inserted_run.id, span.position, span.kind, span.name, span.iteration, span.tool_call_id, span.started_at,
         span.duration_ms, span.input_tokens, span.output_tokens, span.cache_read_tokens, span.cache_write_tokens,
         span.cost_usd, span.is_error, span.error, span.output_preview, span.input, span.parent_tool_call_id, span.prompt_split
    from inserted_run
    join jsonb_populate_recordset(null::run_spans, $3::text::jsonb) as span on span.run_id = inserted_run.id
)`;

/**
 * A name the platform did not send (a Slack slash command has no display name) keeps the stored one; the
 * row is only written when a sent field differs from it.
 */
const PEOPLE = `,
upserted_people as (
  insert into people (channel, user_id, name, username, updated_at)
  select person.channel, person.user_id, person.name, person.username, now()
    from jsonb_populate_recordset(null::people, $4::text::jsonb) as person
   where exists (select from inserted_run)
  on conflict (channel, user_id) do update
     set name = coalesce(excluded.name, people.name),
         username = coalesce(excluded.username, people.username),
         updated_at = excluded.updated_at
   where (excluded.name is not null and excluded.name is distinct from people.name)
      or (excluded.username is not null and excluded.username is distinct from people.username)
)`;

const WRITTEN = `
select id from inserted_run`;

/** The two texts the statement ever has (with and without a change of names): each is prepared once per connection. */
const WITHOUT_PEOPLE = RUNS_AND_MESSAGES + WRITTEN;
const WITH_PEOPLE = RUNS_AND_MESSAGES + PEOPLE + WRITTEN;

export interface Statement {
  text: string;
  params: unknown[];
}

/** The statement flushing `records`: at most one per session (see above). */
export function flushTurnsStatement(records: readonly TurnRecord[]): Statement {
  const runs: unknown[] = [];
  const messages: unknown[] = [];
  const spans: unknown[] = [];
  const people: TurnPerson[] = [];
  for (const record of records) {
    const { run, runId, sessionId } = record;
    runs.push({
      id: runId,
      session_id: sessionId,
      status: run.status,
      silent: run.silent,
      provider: run.provider,
      model: run.model,
      iterations: whole(run.iterations),
      input_tokens: whole(run.inputTokens),
      output_tokens: whole(run.outputTokens),
      cache_read_tokens: whole(run.cacheReadTokens ?? 0),
      cache_write_tokens: whole(run.cacheWriteTokens ?? 0),
      cost_usd: amount(run.costUsd),
      error: run.error ?? null,
      started_at: timestamp(run.startedAt),
      finished_at: timestamp(run.finishedAt),
      duration_ms: Math.max(0, whole(run.finishedAt.getTime() - run.startedAt.getTime())),
      delivered_message_ids: run.deliveredMessageIds,
      message_count: record.messages.length,
      title: record.chatTitle === undefined || record.chatTitle === '' ? null : record.chatTitle,
      conversation: record.conversation ?? null,
    });
    record.messages.forEach((message, seq) => messages.push(messageRow(message, runId, seq)));
    record.spans.forEach((span, position) => spans.push({ ...spanRow(span, position), run_id: runId }));
    if (record.people) people.push(...record.people);
  }
  const params: unknown[] = [toJson(runs), toJson(messages), toJson(spans)];
  const unique = uniquePeople(people);
  if (unique.length === 0) return { text: WITHOUT_PEOPLE, params };
  params.push(toJson(unique.map(personRow)));
  return { text: WITH_PEOPLE, params };
}

/** ON CONFLICT may not meet the same row twice in one statement: one entry per person, the latest naming wins. */
function uniquePeople(people: TurnPerson[]): TurnPerson[] {
  const byId = new Map<string, TurnPerson>();
  for (const person of people) {
    if (!person.name && !person.username) continue;
    const key = `${person.channel}\u0000${person.userId}`;
    byId.delete(key);
    byId.set(key, person);
  }
  return [...byId.values()];
}

function personRow(person: TurnPerson) {
  return { channel: person.channel, user_id: person.userId, name: person.name || null, username: person.username || null };
}

/** A NaN from a provider's odd usage report must not poison the session totals or fail the turn. */
export function whole(value: number): number {
  return Number.isFinite(value) ? Math.round(value) : 0;
}

export function amount(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

/** A timestamp PostgreSQL accepts: an invalid or absurd date (a platform's 1e15 "seconds") becomes now. */
function timestamp(date: Date): string {
  const time = date.getTime();
  return isoTimestamp(Number.isInteger(time) && time >= 0 && time < 253_402_300_800_000 ? time : Date.now());
}

/**
 * An escaped backslash, or the escape JSON.stringify writes for U+0000 or a lone surrogate (a paired one it writes
 * as is). Backslash pairs are matched so that the text `\u0000` (escaped as `\\u0000`) is left alone.
 */
const UNSTORABLE_ESCAPE = /\\(?:\\|u0000|ud[89a-f][0-9a-f]{2})/g;

/**
 * The JSON of rows for PostgreSQL. Its text and jsonb cannot hold U+0000 or a lone surrogate, and a tool or a
 * platform may well send one: a single such character must not cost the whole turn, so it becomes U+FFFD. That
 * is done on the JSON rather than through a replacer, which would keep V8 off its fast path (1.5× the time).
 */
export function toJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (!json.includes('\\u')) return json;
  return json.replace(UNSTORABLE_ESCAPE, (escape) => (escape === '\\\\' ? escape : '\\ufffd'));
}

function messageRow(message: TurnMessage, runId: string, seq: number) {
  return {
    run_id: runId,
    seq,
    role: message.role,
    parts: message.parts,
    inbound_key: message.inboundKey ?? null,
    created_at: timestamp(message.createdAt),
    attachments: message.attachments?.length ? message.attachments : null,
    omitted_from_context: message.omittedFromContext === true,
  };
}

/** What a call made outside the agent loop was for, as its span's output preview says. */
const LLM_PURPOSE_LABELS: Record<LlmCallPurpose, string> = { summary: 'summary', 'memory-flush': 'memory flush' };

export function spanRow(span: TraceSpan, position: number) {
  const common = {
    position,
    kind: span.kind,
    name: span.name,
    started_at: timestamp(new Date(span.startedAt)),
    duration_ms: Math.max(0, whole(span.durationMs)),
    error: span.error ?? null,
    parent_tool_call_id: span.parentToolCallId ?? null,
  };
  switch (span.kind) {
    case 'llm':
      return {
        ...common,
        iteration: span.iteration,
        tool_call_id: null,
        input_tokens: span.usage ? whole(span.usage.inputTokens) : null,
        output_tokens: span.usage ? whole(span.usage.outputTokens) : null,
        cache_read_tokens: span.usage?.cacheReadTokens === undefined ? null : whole(span.usage.cacheReadTokens),
        cache_write_tokens: span.usage?.cacheWriteTokens === undefined ? null : whole(span.usage.cacheWriteTokens),
        cost_usd: span.costUsd === undefined ? null : amount(span.costUsd),
        is_error: span.error !== undefined,
        output_preview: span.purpose ? LLM_PURPOSE_LABELS[span.purpose] : null,
        input: span.input ?? null,
        prompt_split: span.promptSplit ?? null,
      };
    case 'tool':
    case 'approval':
      return {
        ...common,
        iteration: null,
        tool_call_id: span.toolCallId,
        input_tokens: null,
        output_tokens: null,
        cache_read_tokens: null,
        cache_write_tokens: null,
        cost_usd: null,
        is_error: span.isError,
        output_preview: span.outputPreview,
        input: null,
      };
    case 'media':
      return {
        ...common,
        iteration: null,
        tool_call_id: null,
        input_tokens: span.usage ? whole(span.usage.inputTokens) : null,
        output_tokens: span.usage ? whole(span.usage.outputTokens) : null,
        cache_read_tokens: null,
        cache_write_tokens: null,
        cost_usd: span.costUsd === undefined ? null : amount(span.costUsd),
        is_error: span.error !== undefined,
        output_preview: span.detail,
        input: null,
      };
  }
}
