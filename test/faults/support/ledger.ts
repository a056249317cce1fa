import { appendFileSync } from 'node:fs';
import type postgres from 'postgres';
import { expect, inject } from 'vitest';
import type { TelegramDouble } from '../../doubles/telegram-double.js';

export interface LedgerRow {
  scenario: string;
  messagesIn: number;
  answered: number;
  /** Deliberately not answered: silent, stopped, blocked. */
  deliberatelyNot: number;
  duplicates: number;
  lost: number;
}

export interface AcceptedMessage {
  chatId: number;
  messageId: number;
}

/**
 * The fault suite's verdict, from the database and the Telegram double's records: every accepted inbound
 * message is stored exactly once, in a run that answered it (or deliberately did not), and no reply went
 * out more often than the runs say they delivered.
 */
export async function auditTelegramLedger(options: {
  scenario: string;
  sql: postgres.Sql;
  telegram: TelegramDouble;
  botId: number;
  accepted: AcceptedMessage[];
}): Promise<LedgerRow> {
  const { sql, telegram, accepted } = options;
  const keys = accepted.map((message) => `telegram:${options.botId}:${message.chatId}:${message.messageId}`);
  const rows = await sql<Array<{ inbound_key: string; run_id: string; status: string; silent: boolean; error: string | null; delivered: number }>>`
    SELECT m.inbound_key, r.id AS run_id, r.status, r.silent, r.error, jsonb_array_length(r.delivered_message_ids)::int AS delivered
    FROM messages m JOIN runs r ON r.id = m.run_id
    WHERE m.inbound_key = ANY(${keys})`;
  const storedTimes = new Map<string, number>();
  for (const row of rows) storedTimes.set(row.inbound_key, (storedTimes.get(row.inbound_key) ?? 0) + 1);
  const byKey = new Map(rows.map((row) => [row.inbound_key, row]));
  let answered = 0;
  let deliberatelyNot = 0;
  let lost = 0;
  for (const key of keys) {
    const row = byKey.get(key);
    if (!row || storedTimes.get(key) !== 1) {
      lost += 1;
      continue;
    }
    if (row.status === 'completed' && row.delivered > 0 && !row.error) answered += 1;
    else if (row.status === 'cancelled' || row.silent || (row.status === 'completed' && row.error?.startsWith('input blocked'))) deliberatelyNot += 1;
    else lost += 1;
  }
  const chats = new Set(accepted.map((message) => message.chatId));
  const runsDelivered = new Map(rows.map((row) => [row.run_id, row.delivered]));
  const promised = [...runsDelivered.values()].reduce((sum, count) => sum + count, 0);
  // Live-reply drafts are sent, edited into the answer or deleted: count the messages a user still sees.
  const sent = telegram.callsOf('sendMessage').filter((call) => !call.failed && chats.has(Number(call.params.chat_id))).length;
  const deleted = telegram.callsOf('deleteMessage').filter((call) => !call.failed && chats.has(Number(call.params.chat_id))).length;
  const visible = sent - deleted;
  if (process.env.FAULT_DEBUG) {
    const calls = telegram.callsOf('sendMessage').filter((call) => !call.failed && chats.has(Number(call.params.chat_id)));
    console.log(JSON.stringify({ calls: calls.map((call) => [call.params.chat_id, call.at, String(call.params.text).slice(0, 40)]), rows }, null, 1));
  }
  const row: LedgerRow = {
    scenario: options.scenario,
    messagesIn: keys.length,
    answered,
    deliberatelyNot,
    duplicates: Math.max(0, visible - promised),
    lost,
  };
  recordRow(row);
  return row;
}

export function expectNothingLostOrDoubled(row: LedgerRow): void {
  expect({ duplicates: row.duplicates, lost: row.lost }).toEqual({ duplicates: 0, lost: 0 });
  expect(row.answered + row.deliberatelyNot).toBe(row.messagesIn);
}

function recordRow(row: LedgerRow): void {
  const file = inject('faultSummaryFile');
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}

declare module 'vitest' {
  export interface ProvidedContext {
    faultSummaryFile: string;
  }
}
