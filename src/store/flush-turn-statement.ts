import type { LlmCallPurpose, TraceSpan } from '../core/trace-span.js';
import type { TurnMessage, TurnPerson, TurnRecord } from './turn-record.js';

/**
 * The whole turn as ONE statement (one round trip, atomic by itself):
 * - the run row goes in first with ON CONFLICT DO NOTHING; when it already exists every later
 *   step is empty, so a retried turn writes nothing;
 * - the session UPDATE both locks the row and claims `next_seq … next_seq + n - 1`. Under READ
 *   COMMITTED a concurrent flush of the same session waits on the row lock and then sees the
 *   bumped `next_seq`, so turns get consecutive, non-interleaved ranges;
 * - messages and spans arrive as one JSON array each, turned into rows by
 *   jsonb_populate_recordset (JSON keys are the column names);
 * - the group's title rides on the session UPDATE, and senders whose name changed (`record.people`, usually
 *   none: see turn/store-adapter.ts) are upserted in one more step, which writes nothing when the stored
 *   names are already these.
 */
const RUN_AND_MESSAGES = `
with inserted_run as (
  insert into runs (id, session_id, status, silent, provider, model, iterations, input_tokens, output_tokens,
                    cache_read_tokens, cache_write_tokens, cost_usd, error, started_at, finished_at, duration_ms,
                    delivered_message_ids)
  values ($1::text, $2::uuid, $3::text, $4::boolean, $5::text, $6::text, $7::integer, $8::bigint, $9::bigint,
          $10::bigint, $11::bigint, $12::double precision, $13::text, $14::timestamptz, $15::timestamptz,
          $16::integer, $17::text::jsonb)
  on conflict (id) do nothing
  returning id
),
claimed as (
  update sessions
     set next_seq = next_seq + $18::bigint,
         input_tokens = input_tokens + $8::bigint,
         output_tokens = output_tokens + $9::bigint,
         cache_read_tokens = cache_read_tokens + $10::bigint,
         cache_write_tokens = cache_write_tokens + $11::bigint,
         cost_usd = cost_usd + $12::double precision,
         last_model = $6::text,
         title = coalesce($19::text, title),
         updated_at = now()
   where id = $2::uuid and exists (select from inserted_run)
  returning next_seq - $18::bigint as first_seq
),
inserted_messages as (
  insert into messages (session_id, seq, run_id, role, parts, inbound_key, created_at, attachments, omitted_from_context)
  select $2::uuid, claimed.first_seq + message.ordinality - 1, $1::text,
         message.role, message.parts, message.inbound_key, message.created_at, message.attachments, message.omitted_from_context
    from claimed,
         jsonb_populate_recordset(null::messages, $20::text::jsonb) with ordinality as message
),
inserted_spans as (
  insert into run_spans (run_id, position, kind, name, iteration, tool_call_id, started_at, duration_ms,
                         input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, is_error,
                         error, output_preview, input, parent_tool_call_id)
  select inserted_run.id, span.position, span.kind, span.name, span.iteration, span.tool_call_id, span.started_at,
         span.duration_ms, span.input_tokens, span.output_tokens, span.cache_read_tokens, span.cache_write_tokens,
         span.cost_usd, span.is_error, span.error, span.output_preview, span.input, span.parent_tool_call_id
    from inserted_run,
         jsonb_populate_recordset(null::run_spans, $21::text::jsonb) as span
)`;

/**
 * A name the platform did not send (a Slack slash command has no display name) keeps the stored one; the
 * row is only written when a sent field differs from it.
 */
const PEOPLE = `,
upserted_people as (
  insert into people (channel, user_id, name, username, updated_at)
  select person.channel, person.user_id, person.name, person.username, now()
    from inserted_run,
         jsonb_populate_recordset(null::people, $22::text::jsonb) as person
  on conflict (channel, user_id) do update
     set name = coalesce(excluded.name, people.name),
         username = coalesce(excluded.username, people.username),
         updated_at = excluded.updated_at
   where (excluded.name is not null and excluded.name is distinct from people.name)
      or (excluded.username is not null and excluded.username is distinct from people.username)
)`;

const WRITTEN = `
select (select count(*) from inserted_run)::integer as written`;

/** The two texts the statement ever has (with and without a change of names): each is prepared once per connection. */
const WITHOUT_PEOPLE = RUN_AND_MESSAGES + WRITTEN;
const WITH_PEOPLE = RUN_AND_MESSAGES + PEOPLE + WRITTEN;

export interface Statement {
  text: string;
  params: unknown[];
}

export function flushTurnStatement(record: TurnRecord): Statement {
  const { run, runId, sessionId } = record;
  const durationMs = Math.max(0, whole(run.finishedAt.getTime() - run.startedAt.getTime()));
  const chatTitle = record.chatTitle === undefined || record.chatTitle === '' ? null : withoutNul(record.chatTitle);
  const people = uniquePeople(record.people ?? []);
  const params: unknown[] = [
    runId,
    sessionId,
    run.status,
    run.silent,
    run.provider,
    run.model,
    whole(run.iterations),
    whole(run.inputTokens),
    whole(run.outputTokens),
    whole(run.cacheReadTokens ?? 0),
    whole(run.cacheWriteTokens ?? 0),
    amount(run.costUsd),
    run.error === undefined ? null : withoutNul(run.error),
    timestamp(run.startedAt),
    timestamp(run.finishedAt),
    durationMs,
    toJson(run.deliveredMessageIds),
    record.messages.length,
    chatTitle,
    toJson(record.messages.map(messageRow)),
    toJson(record.spans.map(spanRow)),
  ];
  if (people.length === 0) return { text: WITHOUT_PEOPLE, params };
  params.push(toJson(people.map(personRow)));
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

/**
 * PostgreSQL text and jsonb cannot hold U+0000 or a lone surrogate, and a tool or a platform may well send
 * one: a single such character must not cost the whole turn, so it becomes U+FFFD.
 */
function withoutNul(text: string): string {
  return text.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

/** A timestamp PostgreSQL accepts: an invalid or absurd date (a platform's 1e15 "seconds") becomes now. */
function timestamp(date: Date): string {
  const time = date.getTime();
  return Number.isFinite(time) && time >= 0 && time < 253_402_300_800_000 ? date.toISOString() : new Date().toISOString();
}

export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => (typeof member === 'string' ? withoutNul(member) : member));
}

function messageRow(message: TurnMessage) {
  return {
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
