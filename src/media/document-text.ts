import { extractText, getDocumentProxy } from 'unpdf';
import { isTextType } from './sniff-type.js';

export interface DocumentText {
  text: string;
  truncated: boolean;
}

/**
 * The text of a document the model can read: text-like files as UTF-8, PDFs through unpdf (pdf.js built for
 * servers, no native dependencies, maintained by the UnJS team). Undefined: not a type we read as text.
 */
export async function documentText(bytes: Buffer, mimeType: string, maxChars: number): Promise<DocumentText | undefined> {
  let text: string;
  if (mimeType === 'application/pdf') {
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
  if (text.length <= maxChars) return { text, truncated: false };
  return { text: text.slice(0, maxChars), truncated: true };
}
