import { isTextType } from './sniff-type.js';

export interface DocumentText {
  /** At most `maxChars` characters (never ending in half a surrogate pair). */
  text: string;
  truncated: boolean;
  /** The whole text's length in characters. */
  totalChars: number;
  /** The whole text, when it was cut (a PDF's is saved beside it for the tools). */
  whole?: string;
  /** Extracted from a binary format (PDF), not the file's own bytes. */
  extracted: boolean;
}

/**
 * The text of a document the model can read: text-like files as UTF-8, PDFs through unpdf (pdf.js built for
 * servers, no native dependencies, maintained by the UnJS team). Undefined: not a type we read as text.
 */
export async function documentText(bytes: Buffer, mimeType: string, maxChars: number): Promise<DocumentText | undefined> {
  let text: string;
  const extracted = mimeType === 'application/pdf';
  if (mimeType === 'application/pdf') {
    // pdf.js loads with the first PDF, not at start
    const { extractText, getDocumentProxy } = await import('unpdf');
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    try {
      text = (await extractText(pdf, { mergePages: true })).text;
    } finally {
      await pdf.loadingTask.destroy().catch(() => undefined);
    }
  } else if (isTextType(mimeType)) {
    text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  } else {
    return undefined;
  }
  if (text.length <= maxChars) return { text, truncated: false, totalChars: text.length, extracted };
  const lastCode = text.charCodeAt(maxChars - 1);
  const end = lastCode >= 0xd800 && lastCode <= 0xdbff ? maxChars - 1 : maxChars;
  return { text: text.slice(0, end), truncated: true, totalChars: text.length, whole: text, extracted };
}
