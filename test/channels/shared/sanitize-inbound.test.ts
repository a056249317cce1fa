import { describe, expect, it } from 'vitest';
import { sanitizeInbound, sanitizingSink, wellFormedText } from '../../../channels/shared/index.js';
import type { InboundMessage } from '../../../src/core/index.js';

const RECEIVED_AT = Date.parse('2026-11-22T12:00:00Z');
const message = (overrides: Partial<InboundMessage> = {}): InboundMessage => ({
  conversation: { channel: 'telegram', accountId: '42', chatId: '7', chatType: 'group', messageId: '9', threadId: '3' },
  dedupeKey: 'telegram:42:7:9',
  sender: { id: '7', name: 'Ann', username: 'ann' },
  text: 'hello',
  sentAt: RECEIVED_AT - 1000,
  chatTitle: 'Team',
  threadKind: 'topic',
  addressed: true,
  agentId: 'main',
  ...overrides,
});

describe('wellFormedText', () => {
  it('replaces lone surrogates and NUL with U+FFFD and keeps everything else, pairs included', () => {
    expect(wellFormedText('a\uD800b')).toBe('a\uFFFDb');
    expect(wellFormedText('\uDC00 trailing low')).toBe('\uFFFD trailing low');
    expect(wellFormedText('high at the end \uDBFF')).toBe('high at the end \uFFFD');
    expect(wellFormedText('nul\u0000byte')).toBe('nul\uFFFDbyte');
    expect(wellFormedText('emoji 😀 and 中文 stay')).toBe('emoji 😀 and 中文 stay');
    expect(wellFormedText('')).toBe('');
  });
});

describe('sanitizeInbound', () => {
  it('makes every string of the message well formed: text, names, title, ids and keys', () => {
    const poisoned = message({
      conversation: { channel: 'telegram', accountId: '4\u00002', chatId: '7\uD800', chatType: 'group', messageId: '\uDC009', threadId: '3\u0000' },
      dedupeKey: 'telegram:42:7\uD800:9',
      sender: { id: '7\uD800', name: 'A\uD800nn', username: 'a\u0000nn' },
      text: 'hi \uD800 there\u0000',
      chatTitle: 'Te\uDFFFam',
      agentId: 'ma\u0000in',
    });
    const clean = sanitizeInbound(poisoned, RECEIVED_AT);
    expect(clean).toEqual({
      ...poisoned,
      conversation: { channel: 'telegram', accountId: '4\uFFFD2', chatId: '7\uFFFD', chatType: 'group', messageId: '\uFFFD9', threadId: '3\uFFFD' },
      dedupeKey: 'telegram:42:7\uFFFD:9',
      sender: { id: '7\uFFFD', name: 'A\uFFFDnn', username: 'a\uFFFDnn' },
      text: 'hi \uFFFD there\uFFFD',
      chatTitle: 'Te\uFFFDam',
      agentId: 'ma\uFFFDin',
    });
    // every string now survives a strict UTF-8 round trip (what PostgreSQL checks)
    const json = JSON.stringify(clean);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(new TextEncoder().encode(json))).toBe(json);
    expect(json).not.toContain('\\u0000');
  });

  it('leaves a clean message as it is: the same object, not a copy', () => {
    const clean = message();
    expect(sanitizeInbound(clean, RECEIVED_AT)).toBe(clean);
    expect(sanitizeInbound(clean, RECEIVED_AT)).toEqual(message());
  });

  it('cleans a message whose only bad string is deep in it (an attachment name)', () => {
    const deep = message({ attachments: [{ kind: 'document', fileId: 'f1', fileName: 'report\uD800.pdf' }] } as unknown as Partial<InboundMessage>);
    const clean = sanitizeInbound(deep, RECEIVED_AT) as unknown as { attachments: Array<{ fileName: string }> };
    expect(clean).not.toBe(deep);
    expect(clean.attachments[0]!.fileName).toBe('report\uFFFD.pdf');
  });

  it.each([
    ['a date of 1e15 seconds taken as milliseconds', 1e18],
    ['Feishu create_time 1e30', 1e30],
    ['more than a day ahead', RECEIVED_AT + 24 * 3600_000 + 1],
    ['before 2000', Date.UTC(1999, 11, 31)],
    ['zero', 0],
    ['negative', -5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('replaces a sentAt that is %s with the receive time', (_name, sentAt) => {
    expect(sanitizeInbound(message({ sentAt }), RECEIVED_AT).sentAt).toBe(RECEIVED_AT);
  });

  it.each([
    ['now', RECEIVED_AT],
    ['a year ago', RECEIVED_AT - 365 * 24 * 3600_000],
    ['an hour ahead (a fast clock)', RECEIVED_AT + 3600_000],
    ['2000-01-01 exactly', Date.UTC(2000, 0, 1)],
  ])('keeps a sentAt of %s', (_name, sentAt) => {
    expect(sanitizeInbound(message({ sentAt }), RECEIVED_AT).sentAt).toBe(sentAt);
  });

  it('sanitizingSink hands the sink the sanitized message, dated by its clock', async () => {
    const received: InboundMessage[] = [];
    const sink = sanitizingSink(async (inbound) => {
      received.push(inbound);
      return { kind: 'queued', sessionKey: 's' };
    }, () => RECEIVED_AT);
    expect(await sink(message({ text: 'x\uD800', sentAt: 1e18 }))).toEqual({ kind: 'queued', sessionKey: 's' });
    expect(received.map((inbound) => [inbound.text, inbound.sentAt])).toEqual([['x\uFFFD', RECEIVED_AT]]);
  });
});
