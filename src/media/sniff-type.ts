export interface SniffedType {
  mimeType: string;
  /** What the bytes are, for the user: `png`, `zip`, `text`… */
  label: string;
}

/** The images every vision API takes. */
export const MODEL_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

const TEXT_DECLARED = /^(text\/|application\/(json|xml|yaml|x-yaml|toml|javascript|typescript|x-sh|sql|csv|x-ndjson))/;
const TEXT_EXTENSIONS = /\.(txt|md|markdown|csv|tsv|json|jsonl|ya?ml|toml|ini|xml|html?|css|log|sql|sh|py|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|c|h|cpp|hpp|cs|rb|php|swift|scala|lua|pl|r|tex|conf|env)$/i;

/**
 * What the bytes really are: magic numbers first (file-type), then "text" for valid UTF-8 without control
 * bytes. The declared type and name only label plain text (markdown, csv, json…), never decide binaries.
 */
export async function sniffType(bytes: Buffer, declared: { mimeType?: string | undefined; fileName?: string | undefined }): Promise<SniffedType | undefined> {
  const detected = await detectFileType(bytes);
  if (detected) return { mimeType: detected.mime, label: detected.ext };
  if (!looksLikeText(bytes)) return undefined;
  const declaredText = declared.mimeType && TEXT_DECLARED.test(declared.mimeType) ? declared.mimeType.split(';')[0]! : undefined;
  const byName = declared.fileName && TEXT_EXTENSIONS.test(declared.fileName) ? 'text/plain' : undefined;
  return { mimeType: declaredText ?? byName ?? 'text/plain', label: 'text' };
}

export function isTextType(mimeType: string): boolean {
  return TEXT_DECLARED.test(mimeType);
}

/** Valid UTF-8 with no NUL or other C0 controls besides tab, newline, carriage return and form feed. */
function looksLikeText(bytes: Buffer): boolean {
  if (bytes.length === 0) return true;
  const sample = bytes.subarray(0, 64 * 1024);
  for (const byte of sample) if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample.length < bytes.length ? trimPartial(sample) : sample);
    return true;
  } catch {
    return false;
  }
}

/** A sample cut mid-character must not count as invalid UTF-8. */
function trimPartial(sample: Buffer): Buffer {
  let end = sample.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = sample[end - back]!;
    if ((byte & 0xc0) === 0xc0) return sample.subarray(0, end - back);
    if ((byte & 0x80) === 0) break;
  }
  return sample;
}

/** file-type's magic-number detection; the package loads with the first file, not at start. */
export async function detectFileType(bytes: Uint8Array): Promise<{ mime: string; ext: string } | undefined> {
  const { fileTypeFromBuffer } = await import('file-type');
  return fileTypeFromBuffer(bytes);
}
