import type { TraceSpan } from '../core/trace-span.js';
import type { Attachment, StoredAttachment } from '../core/attachment.js';
import type { Channel } from '../core/channel.js';
import type { ImagePart } from '../core/chat-message.js';
import { BotError, errorMessage, isAbortError } from '../core/errors.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { attachmentLabel, capitalized, humanSize } from './attachment-label.js';
import { documentText, type DocumentText } from './document-text.js';
import { mediaCacheKey, type MediaCache } from './media-cache.js';
import type { MediaConfig } from './media-config.js';
import { sanitizeFileName, saveUpload, UPLOADS_FOLDER } from './save-upload.js';
import { MODEL_IMAGE_TYPES, sniffType, type SniffedType } from './sniff-type.js';
import type { Transcriber } from '../llm/transcription.js';

/** What one message's attachments turned into. */
export interface MessageMedia {
  /** Lines for the user message, before the user's own words: voice transcripts. */
  spoken: string[];
  /** Lines for the user message, after the user's words: documents, image placeholders, failures (for the model). */
  notes: string[];
  /** Image input for this turn only (never stored). */
  images: ImagePart[];
  stored: StoredAttachment[];
  /** One short sentence per attachment that could not be used, for the reply. */
  notices: string[];
  /** Downloads and transcriptions, for the run's trace. */
  spans: MediaSpan[];
}

export type MediaSpan = Extract<TraceSpan, { kind: 'media' }>;

export interface MediaTurn {
  channel: Channel;
  /** The bot account the turn's messages came to (a platform's file references are per account). */
  accountId: string;
  workspace: string;
  /** False: images are named, not sent, and the user is told once per turn. */
  modelTakesImages: boolean;
  signal: AbortSignal;
  /** Images still allowed in this turn (MEDIA_MAX_IMAGES), shared by the turn's messages. */
  imageBudget: { left: number; visionRefused: boolean };
}

export interface MediaDependencies {
  config: MediaConfig;
  transcriber: Transcriber | undefined;
  /** Absent (or MEDIA_CACHE_MAX_BYTES=0): every attempt of a turn downloads its files again. */
  cache?: MediaCache | undefined;
  logger: Logger;
  metrics?: Metrics | undefined;
}

type Outcome = StoredAttachment['outcome'];

/**
 * The pipeline for one message's files: download (capped) → sniff the bytes → per kind: image input,
 * transcript, or document text (saved under uploads/). Never throws for a bad file: each failure becomes a
 * notice naming the attachment and why, and the rest of the message is answered. Only an abort propagates.
 */
export async function prepareMedia(deps: MediaDependencies, attachments: Attachment[], turn: MediaTurn): Promise<MessageMedia> {
  const media: MessageMedia = { spoken: [], notes: [], images: [], stored: [], notices: [], spans: [] };
  for (const [index, attachment] of attachments.entries()) {
    const label = attachmentLabel(attachment, index, attachments.length);
    const stored: StoredAttachment = {
      kind: attachment.kind,
      ...(attachment.fileName ? { fileName: attachment.fileName } : {}),
      ...(attachment.mimeType ? { mimeType: attachment.mimeType } : {}),
      ...(attachment.size !== undefined ? { size: attachment.size } : {}),
      platformFileId: attachment.platformFileId,
      outcome: 'used',
    };
    const fail = (outcome: Outcome, reason: string) => {
      stored.outcome = outcome;
      media.notices.push(`${capitalized(label)} could not be used: ${reason}.`);
      media.notes.push(`[Attachment ${label} could not be used: ${reason}]`);
    };
    try {
      await prepareOne(deps, attachment, label, turn, media, stored, fail);
    } catch (error) {
      if (isAbortError(error) || turn.signal.aborted) throw error;
      deps.logger.warn({ err: error, kind: attachment.kind, fileId: attachment.platformFileId }, 'attachment failed');
      fail('unsupported', 'it could not be read');
    }
    deps.metrics?.attachments.inc({ kind: attachment.kind, outcome: stored.outcome });
    media.stored.push(stored);
  }
  return media;
}

async function prepareOne(
  deps: MediaDependencies,
  attachment: Attachment,
  label: string,
  turn: MediaTurn,
  media: MessageMedia,
  stored: StoredAttachment,
  fail: (outcome: Outcome, reason: string) => void,
): Promise<void> {
  const { config } = deps;
  if (attachment.kind === 'audio' && !deps.transcriber) return fail('not-supported-here', 'voice messages are not supported here');
  if (attachment.size !== undefined && attachment.size > config.maxBytes) return fail('too-large', `it is larger than the ${humanSize(config.maxBytes)} limit`);

  let bytes: Buffer;
  const downloadStarted = Date.now();
  const downloadSpan = (error: string | undefined, detail: string, name = `download:${attachment.kind}`) =>
    media.spans.push({ kind: 'media', name, startedAt: downloadStarted, durationMs: Date.now() - downloadStarted, error, detail });
  // a retry or a takeover of this turn on this machine reads what the first attempt fetched
  const cacheKey = mediaCacheKey(turn.channel.name, turn.accountId, attachment.ref);
  const cached = await deps.cache?.read(cacheKey, config.maxBytes);
  try {
    if (cached) {
      bytes = cached;
      downloadSpan(undefined, `${bytes.length} bytes from the media cache (${attachment.platformFileId})`, `cached:${attachment.kind}`);
    } else {
      bytes = (await turn.channel.downloadAttachment(attachment, { maxBytes: config.maxBytes, signal: turn.signal })).bytes;
      downloadSpan(undefined, `${bytes.length} bytes from ${turn.channel.name} (${attachment.platformFileId})`);
      deps.metrics?.attachmentDownloadBytes.inc({ channel: turn.channel.name }, bytes.length);
      await deps.cache?.write(cacheKey, bytes);
    }
  } catch (error) {
    if (isAbortError(error) || turn.signal.aborted) throw error;
    downloadSpan(errorMessage(error), `${attachment.platformFileId} from ${turn.channel.name}`);
    deps.logger.warn({ err: error, fileId: attachment.platformFileId }, 'attachment download failed');
    if (error instanceof BotError && error.code === 'too-large') return fail('too-large', `it is larger than the ${humanSize(config.maxBytes)} limit`);
    if (error instanceof BotError && error.code === 'not-found') return fail('download-failed', 'the platform no longer offers it for download (the link may have expired)');
    return fail('download-failed', 'the download failed');
  }
  stored.size = bytes.length;
  const sniffed = await sniffType(bytes, attachment);
  if (sniffed) stored.mimeType = sniffed.mimeType;

  if (attachment.kind === 'audio') return transcribe(deps, bytes, attachment, sniffed, turn, media, stored, fail);
  const fileName = sanitizeFileName(attachment.fileName, attachment.kind === 'image' ? `image-${attachment.platformFileId.slice(-12)}` : 'document');
  const isImage = sniffed !== undefined && MODEL_IMAGE_TYPES.has(sniffed.mimeType);
  if (attachment.kind === 'document') {
    stored.savedAs = await saveUpload(turn.workspace, fileName, bytes);
    if (!isImage) return readDocument(config, bytes, sniffed, label, turn, stored, media, fail);
  }
  if (!isImage && sniffed?.mimeType.startsWith('image/')) return fail('unsupported', `${sniffed.label} images are not supported (png, jpeg, gif and webp are)`);
  if (!isImage) return fail('unsupported', sniffed ? `it is a ${sniffed.label} file, not an image` : 'it is not an image');
  const placeholder = `[image: ${stored.savedAs ?? fileName} (${sniffed.mimeType}, ${humanSize(bytes.length)})${stored.savedAs ? `, saved as ${stored.savedAs}` : ''}]`;
  if (!turn.modelTakesImages) {
    media.notes.push(`${placeholder} (not shown: this model takes no images)`);
    if (!turn.imageBudget.visionRefused) media.notices.push('This model cannot look at images, so I answered from the text only.');
    turn.imageBudget.visionRefused = true;
    stored.outcome = 'not-supported-here';
    return;
  }
  if (turn.imageBudget.left <= 0) return fail('unsupported', `only ${config.maxImages} images can be looked at per message`);
  turn.imageBudget.left -= 1;
  media.notes.push(placeholder);
  media.images.push({ type: 'image', mimeType: sniffed.mimeType, data: bytes.toString('base64') });
}

function readDocument(
  config: MediaConfig,
  bytes: Buffer,
  sniffed: SniffedType | undefined,
  label: string,
  turn: MediaTurn,
  stored: StoredAttachment,
  media: MessageMedia,
  fail: (outcome: Outcome, reason: string) => void,
): Promise<void> {
  return (async () => {
    const text = sniffed ? await documentText(bytes, sniffed.mimeType, config.textMaxChars).catch(() => null) : undefined;
    if (text === null) return fail('unsupported', `it could not be read as ${sniffed?.label ?? 'a document'} (saved as ${stored.savedAs})`);
    if (text === undefined) return fail('unsupported', `${sniffed ? `${sniffed.label} files` : 'this kind of file'} cannot be read as text (saved as ${stored.savedAs})`);
    stored.extractedText = text.text;
    const cut = text.truncated ? `\n${await cutNote(turn, stored.savedAs!, bytes, text)}` : '';
    media.notes.push(`[Document ${label} (${sniffed!.mimeType}, ${humanSize(bytes.length)}), saved as ${stored.savedAs}]\n<document>\n${text.text}\n</document>${cut}`);
  })();
}

/**
 * What a cut document leaves out and where the rest is: the saved file itself when it is text (the byte offset
 * where the shown part ends), else (a PDF) its extracted text saved beside it as `<name>.txt`.
 */
async function cutNote(turn: MediaTurn, savedAs: string, bytes: Buffer, text: DocumentText): Promise<string> {
  const shown = text.text.length;
  const left = `[Document cut at ${shown} characters: ${text.totalChars - shown} of its ${text.totalChars} characters are left out.`;
  if (!text.extracted) {
    const bom = bytes.subarray(0, 3).equals(UTF8_BOM) ? UTF8_BOM.length : 0;
    const offset = bom + Buffer.byteLength(text.text, 'utf8');
    return `${left} The whole file is ${savedAs} in your workspace: read the rest with read_file {"path": "${savedAs}", "offset": ${offset}} (offset in bytes).]`;
  }
  const textName = sanitizeFileName(`${savedAs.slice(UPLOADS_FOLDER.length + 1)}.txt`, 'document.txt');
  const textFile = await saveUpload(turn.workspace, textName, Buffer.from(text.whole ?? text.text, 'utf8'));
  const offset = Buffer.byteLength(text.text, 'utf8');
  return `${left} The whole file is ${savedAs} in your workspace and its text is ${textFile}: read the rest with read_file {"path": "${textFile}", "offset": ${offset}} (offset in bytes).]`;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

async function transcribe(
  deps: MediaDependencies,
  bytes: Buffer,
  attachment: Attachment,
  sniffed: SniffedType | undefined,
  turn: MediaTurn,
  media: MessageMedia,
  stored: StoredAttachment,
  fail: (outcome: Outcome, reason: string) => void,
): Promise<void> {
  const mimeType = sniffed?.mimeType ?? '';
  if (!/^(audio|video)\//.test(mimeType) && mimeType !== 'application/ogg') {
    return fail('unsupported', sniffed ? `it is a ${sniffed.label} file, not audio` : 'it is not audio');
  }
  const started = Date.now();
  try {
    const extension = sniffed?.label ?? 'ogg';
    const { text, usage, seconds, costUsd } = await deps.transcriber!({ bytes, fileName: `audio.${extension}`, mimeType }, turn.signal);
    deps.metrics?.transcriptionSeconds.observe((Date.now() - started) / 1000);
    // a model call like any other: its tokens (or seconds) and cost are the turn's (turn/media-charges.ts)
    const billed = seconds !== undefined ? `, ${seconds} s of audio billed` : '';
    media.spans.push({ kind: 'media', name: 'transcribe', startedAt: started, durationMs: Date.now() - started, error: undefined, detail: `${bytes.length} bytes of ${mimeType} → ${text.length} characters${billed}`, usage, costUsd });
    if (text === '') return fail('transcription-failed', 'no speech could be made out in it');
    stored.transcript = text;
    // like a document's text, a transcript is bounded by MEDIA_TEXT_MAX_CHARS (not by the typed words' limit)
    const max = deps.config.textMaxChars;
    const shown = text.length <= max ? text : `${text.slice(0, max)}\n[Transcript cut at ${max} characters of ${text.length}.]`;
    media.spoken.push(`[Voice message, transcribed${attachment.durationSeconds ? `, ${attachment.durationSeconds} s` : ''}]\n${shown}`);
  } catch (error) {
    if (isAbortError(error) || turn.signal.aborted) throw error;
    deps.logger.warn({ err: errorMessage(error) }, 'transcription failed');
    media.spans.push({ kind: 'media', name: 'transcribe', startedAt: started, durationMs: Date.now() - started, error: errorMessage(error), detail: `${bytes.length} bytes of ${mimeType}` });
    fail('transcription-failed', 'the transcription failed');
  }
}
