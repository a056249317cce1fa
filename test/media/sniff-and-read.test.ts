import { describe, expect, it } from 'vitest';
import { documentText, sanitizeFileName, sniffType } from '../../src/media/index.js';
import { modelTakesImages } from '../../src/media/model-vision.js';
import { oggOpusBytes, pdfBytes, PNG_BYTES, zipBytes } from '../support/media-fixtures.js';

describe('sniffing the real type from the bytes', () => {
  it('knows images, voice notes, PDFs and zips by their magic numbers, whatever they claim', async () => {
    expect(await sniffType(PNG_BYTES, { mimeType: 'image/jpeg' })).toEqual({ mimeType: 'image/png', label: 'png' });
    expect((await sniffType(oggOpusBytes(), {}))?.mimeType).toMatch(/^audio\/(ogg|opus)/);
    expect(await sniffType(pdfBytes('x'), { mimeType: 'text/plain' })).toEqual({ mimeType: 'application/pdf', label: 'pdf' });
    expect(await sniffType(zipBytes(), { mimeType: 'image/png', fileName: 'cat.png' })).toEqual({ mimeType: 'application/zip', label: 'zip' });
  });

  it('calls valid UTF-8 text, labelled by its declared type or name, and refuses other binary', async () => {
    expect(await sniffType(Buffer.from('a,b\n1,2\n'), { mimeType: 'text/csv' })).toEqual({ mimeType: 'text/csv', label: 'text' });
    expect(await sniffType(Buffer.from('# Title\nnaïve café ✓'), { fileName: 'notes.md' })).toEqual({ mimeType: 'text/plain', label: 'text' });
    expect(await sniffType(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe]), { mimeType: 'text/plain' })).toBeUndefined();
  });
});

describe('document text', () => {
  it('extracts the text of a PDF', async () => {
    const extracted = await documentText(pdfBytes('Quarterly revenue grew 12 percent'), 'application/pdf', 1000);
    expect(extracted?.text).toContain('Quarterly revenue grew 12 percent');
    expect(extracted?.truncated).toBe(false);
  });

  it('cuts long text at the limit and says so', async () => {
    const extracted = await documentText(Buffer.from('x'.repeat(50)), 'text/plain', 20);
    expect(extracted).toEqual({ text: 'x'.repeat(20), truncated: true, totalChars: 50, whole: 'x'.repeat(50), extracted: false });
  });

  it('never cuts a character in half', async () => {
    const extracted = await documentText(Buffer.from(`${'x'.repeat(19)}😀tail`), 'text/plain', 20);
    expect(extracted?.text).toBe('x'.repeat(19));
  });

  it('reads no binary type as text', async () => {
    expect(await documentText(zipBytes(), 'application/zip', 1000)).toBeUndefined();
  });
});

describe('file names and models', () => {
  it('keeps one safe path segment of a platform file name', () => {
    expect(sanitizeFileName('../../etc/passwd', 'document')).toBe('passwd');
    expect(sanitizeFileName('..\\..\\boot.ini', 'document')).toBe('boot.ini');
    expect(sanitizeFileName('.hidden', 'document')).toBe('hidden');
    expect(sanitizeFileName('a\u0000b:c?.txt', 'document')).toBe('a_b_c_.txt');
    expect(sanitizeFileName(undefined, 'document')).toBe('document');
    expect(sanitizeFileName('..', 'document')).toBe('document');
    expect(sanitizeFileName(`${'n'.repeat(300)}.pdf`, 'document')).toMatch(/^n{116}\.pdf$/);
  });

  it('knows text-only models', () => {
    expect(modelTakesImages('gpt-4o-mini')).toBe(true);
    expect(modelTakesImages('claude-sonnet-4-5')).toBe(true);
    expect(modelTakesImages('gpt-3.5-turbo')).toBe(false);
    expect(modelTakesImages('deepseek-chat')).toBe(false);
  });
});
