import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Attachment, Channel, DownloadedFile } from '../../src/core/index.js';
import { BotError } from '../../src/core/index.js';
import { createMediaCache, MEDIA_DEFAULTS, prepareMedia, type MediaDependencies, type MediaTurn } from '../../src/media/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { oggOpusBytes, pdfBytes, PNG_BYTES } from '../support/media-fixtures.js';

/**
 * The pipeline's decisions, with files served by a small in-memory Channel (the interface the channels
 * implement); downloads over the real platforms are covered end to end in test/e2e/attachments-*.test.ts.
 */
const workspace = mkdtempSync(join(tmpdir(), 'media-test-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

function servingChannel(files: Record<string, Buffer | Error>, downloads: string[] = []): Channel {
  return {
    name: 'telegram',
    downloadAttachment: async (attachment: Attachment): Promise<DownloadedFile> => {
      downloads.push(attachment.ref);
      const file = files[attachment.ref];
      if (file instanceof Error) throw file;
      if (!file) throw new BotError('not-found', 'gone');
      return { bytes: file };
    },
  } as unknown as Channel;
}

const deps = (overrides: Partial<MediaDependencies['config']> = {}, transcriber?: MediaDependencies['transcriber']): MediaDependencies => ({
  config: { ...MEDIA_DEFAULTS, transcribe: undefined, ...overrides },
  transcriber,
  logger: createLogger({ level: 'silent' }),
});
const turn = (channel: Channel, extra: Partial<MediaTurn> = {}): MediaTurn => ({
  channel,
  accountId: 'bot-1',
  workspace,
  modelTakesImages: true,
  signal: new AbortController().signal,
  imageBudget: { left: 8, visionRefused: false },
  ...extra,
});
const photo = (ref: string): Attachment => ({ kind: 'image', platformFileId: ref, ref, mimeType: 'image/jpeg' });

describe('prepareMedia', () => {
  it('shows at most the turn’s image budget and names the rest', async () => {
    const channel = servingChannel({ a: PNG_BYTES, b: PNG_BYTES, c: PNG_BYTES });
    const result = await prepareMedia(deps({ maxImages: 2 }), [photo('a'), photo('b'), photo('c')], turn(channel, { imageBudget: { left: 2, visionRefused: false } }));
    expect(result.images).toHaveLength(2);
    expect(result.notices).toEqual(['Photo 3 could not be used: only 2 images can be looked at per message.']);
    expect(result.stored.map((stored) => stored.outcome)).toEqual(['used', 'used', 'unsupported']);
  });

  it('tells once that the model takes no images, and sends none', async () => {
    const channel = servingChannel({ a: PNG_BYTES, b: PNG_BYTES });
    const result = await prepareMedia(deps(), [photo('a'), photo('b')], turn(channel, { modelTakesImages: false }));
    expect(result.images).toHaveLength(0);
    expect(result.notices).toEqual(['This model cannot look at images, so I answered from the text only.']);
    expect(result.notes.every((note) => note.includes('not shown: this model takes no images'))).toBe(true);
  });

  it('refuses a file whose declared size is over the cap without downloading it', async () => {
    const downloads: string[] = [];
    const channel = servingChannel({ big: PNG_BYTES }, downloads);
    const result = await prepareMedia(deps({ maxBytes: 1000 }), [{ kind: 'document', fileName: 'big.bin', platformFileId: 'big', ref: 'big', size: 5000 }], turn(channel));
    expect(downloads).toEqual([]);
    expect(result.notices).toEqual(['"big.bin" could not be used: it is larger than the 1000 B limit.']);
    expect(readdirSync(workspace)).not.toContain('uploads');
  });

  it('answers voice with "not supported here" without a transcriber, and reports a failed transcription', async () => {
    const voice: Attachment = { kind: 'audio', fileName: 'voice.ogg', platformFileId: 'v', ref: 'v', mimeType: 'audio/ogg' };
    const channel = servingChannel({ v: oggOpusBytes() });
    const without = await prepareMedia(deps(), [voice], turn(channel));
    expect(without.notices).toEqual(['The voice message could not be used: voice messages are not supported here.']);
    const failing = await prepareMedia(deps({}, async () => Promise.reject(new Error('503 from the API'))), [voice], turn(channel));
    expect(failing.notices).toEqual(['The voice message could not be used: the transcription failed.']);
    expect(failing.stored[0]!.outcome).toBe('transcription-failed');
    expect(failing.spans.map((span) => [span.name, span.error])).toEqual([['download:audio', undefined], ['transcribe', '503 from the API']]);
  });

  it('names an image type the models do not take', async () => {
    const bmp = Buffer.concat([Buffer.from('BM'), Buffer.alloc(60, 0)]);
    bmp.writeUInt32LE(62, 2);
    bmp.writeUInt32LE(54, 10);
    bmp.writeUInt32LE(40, 14);
    const result = await prepareMedia(deps(), [photo('bmp')], turn(servingChannel({ bmp })));
    expect(result.notices).toEqual(['The photo could not be used: bmp images are not supported (png, jpeg, gif and webp are).']);
  });

  it('a cut PDF: its text is saved beside it and the note says where to read on', async () => {
    const pdf = pdfBytes('Quarterly revenue grew 12 percent in the north');
    const result = await prepareMedia(deps({ textMaxChars: 10 }), [{ kind: 'document', fileName: 'report.pdf', platformFileId: 'r', ref: 'r' }], turn(servingChannel({ r: pdf })));
    const note = result.notes[0]!;
    expect(note).toContain('<document>\nQuarterly \n</document>');
    const whole = readFileSync(join(workspace, 'uploads', 'report.pdf.txt'), 'utf8');
    expect(whole).toContain('Quarterly revenue grew 12 percent in the north');
    expect(note).toContain(
      `[Document cut at 10 characters: ${whole.length - 10} of its ${whole.length} characters are left out. The whole file is uploads/report.pdf in your workspace and its text is uploads/report.pdf.txt: read the rest with read_file {"path": "uploads/report.pdf.txt", "offset": 10} (offset in bytes).]`,
    );
  });

  it('a second attempt of a turn reads the files the first one downloaded from the media cache', async () => {
    const downloads: string[] = [];
    const channel = servingChannel({ a: PNG_BYTES }, downloads);
    const cache = createMediaCache({ directory: join(workspace, 'cache'), maxBytes: 1_000_000, maxAgeMs: 60_000, logger: createLogger({ level: 'silent' }) });
    const first = await prepareMedia({ ...deps(), cache }, [photo('a')], turn(channel));
    const second = await prepareMedia({ ...deps(), cache }, [photo('a')], turn(channel));
    expect(downloads).toEqual(['a']);
    expect(second.images).toEqual(first.images);
    expect(second.spans.map((span) => span.name)).toEqual(['cached:image']);
    // another bot account's file of the same reference is not this one
    await prepareMedia({ ...deps(), cache }, [photo('a')], turn(channel, { accountId: 'bot-2' }));
    expect(downloads).toEqual(['a', 'a']);
  });

  it('lets an abort through instead of turning it into a notice', async () => {
    const controller = new AbortController();
    controller.abort();
    const channel = servingChannel({ a: new BotError('aborted', 'stopped') });
    await expect(prepareMedia(deps(), [photo('a')], turn(channel, { signal: controller.signal }))).rejects.toThrow('stopped');
  });
});
