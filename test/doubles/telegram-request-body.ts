import type { IncomingMessage } from 'node:http';

/** What a Bot API request carries, read as the Bot API reads it: JSON, form-encoded or multipart (file uploads). */
export async function readParams(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  if (body === '') return {};
  const type = request.headers['content-type'] ?? '';
  if (type.includes('application/json')) return JSON.parse(body) as Record<string, unknown>;
  if (type.includes('multipart/form-data')) return readMultipart(Buffer.concat(chunks), type);
  if (type.includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries([...new URLSearchParams(body)].map(([key, value]) => [key, parseFormValue(value)]));
  }
  return {};
}

/** A file part of a multipart request (grammY's InputFile uploads). */
export class UploadedFile {
  constructor(
    readonly name: string,
    readonly bytes: Buffer,
  ) {}
}

export interface TelegramUpload {
  method: string;
  chatId: number | string;
  fileName: string;
  bytes: Buffer;
  caption: string | undefined;
  messageId: number;
}

/**
 * multipart/form-data as the Bot API reads it: plain fields (JSON-decoded like form values) and files; a
 * field `attach://<name>` points at the file part called `<name>`.
 */
async function readMultipart(body: Buffer, contentType: string): Promise<Record<string, unknown>> {
  const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  const parts = new Map<string, unknown>();
  for (const [key, value] of form.entries()) {
    parts.set(key, typeof value === 'string' ? parseFormValue(value) : new UploadedFile(value.name, Buffer.from(await value.arrayBuffer())));
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of parts) {
    params[key] = typeof value === 'string' && value.startsWith('attach://') ? parts.get(value.slice('attach://'.length)) : value;
  }
  return params;
}

/** Form fields carry JSON-serialized objects and numbers, as the Bot API accepts them. */
function parseFormValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
