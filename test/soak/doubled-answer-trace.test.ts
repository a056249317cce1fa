import { afterEach, describe, expect, it } from 'vitest';
import { telegramChats, tokenOf } from '../../soak/chats.js';
import { judge, type SoakMessage } from '../../soak/load.js';
import { startTelegramDouble, type TelegramDouble } from '../doubles/telegram-double.js';

/** The soak's verdict on a doubled Telegram answer names the calls around it (issue 53: a late original or a missed search). */
describe('soak verdict: a doubled answer', () => {
  let telegram: TelegramDouble | undefined;
  afterEach(async () => {
    await telegram?.close();
    telegram = undefined;
  });

  async function call(method: string, params: Record<string, unknown>): Promise<unknown> {
    const response = await fetch(`${telegram!.apiRoot}/bot${telegram!.token}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    return ((await response.json()) as { result?: unknown }).result;
  }

  it('is counted once per extra answer and traced with the sends and the probe between them; a single answer is not traced', async () => {
    telegram = await startTelegramDouble();
    const [chat] = telegramChats(telegram, 1);
    const chatId = 700_000;
    const doubled = `You said: ${tokenOf(0, 'telegram', 1)}`;
    const first = (await call('sendMessage', { chat_id: chatId, text: doubled })) as { message_id: number };
    // a takeover's probe of an id the part did not get, then the part sent again
    await call('editMessageReplyMarkup', { chat_id: chatId, message_id: first.message_id + 1, reply_markup: { inline_keyboard: [[{ text: '…', callback_data: 'delivery-probe' }]] } });
    await call('sendMessage', { chat_id: chatId, text: doubled });
    await call('sendMessage', { chat_id: chatId, text: `You said: ${tokenOf(0, 'telegram', 2)}` });
    const messages: SoakMessage[] = [1, 2].map((seq) => ({ chat: chat!.name, seq, firstPostAt: Date.now(), acceptedAt: Date.now(), attempts: 1 }));

    const verdict = judge([chat!], messages);

    expect(verdict).toMatchObject({ messages: 2, answered: 2, lost: 0, duplicated: 1, outOfOrder: 0 });
    expect(verdict.duplicates).toHaveLength(1);
    const [duplicate] = verdict.duplicates;
    expect(duplicate!.seq).toBe(1);
    expect(duplicate!.answerIds).toHaveLength(2);
    expect(duplicate!.trace!.map((traced) => traced.method)).toEqual(['sendMessage', 'editMessageReplyMarkup', 'sendMessage', 'sendMessage']);
    expect(duplicate!.trace![1]).toMatchObject({ messageId: first.message_id + 1, failed: true });
    expect(duplicate!.trace![0]).toMatchObject({ text: doubled.slice(0, 40), tookMs: expect.any(Number) });
  });
});
