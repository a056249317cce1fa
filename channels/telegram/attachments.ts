import type { Message } from 'grammy/types';
import type { Attachment } from '../../src/core/index.js';

/**
 * The files of a Telegram message as references (the file_id is both the stored id and how `getFile`
 * finds it again): the largest photo size, a document, a voice note, an audio file, or a round video
 * note (whose audio is what the bot can use).
 */
export function attachmentsOf(message: Message): Attachment[] {
  const attachments: Attachment[] = [];
  const largest = message.photo?.reduce((best, size) => (area(size) >= area(best) ? size : best));
  if (largest) {
    attachments.push({ kind: 'image', mimeType: 'image/jpeg', platformFileId: largest.file_id, ref: largest.file_id, ...sizeOf(largest.file_size) });
  }
  if (message.document) {
    const { document } = message;
    attachments.push({
      kind: document.mime_type?.startsWith('image/') ? 'image' : 'document',
      ...(document.file_name ? { fileName: document.file_name } : {}),
      ...(document.mime_type ? { mimeType: document.mime_type } : {}),
      platformFileId: document.file_id,
      ref: document.file_id,
      ...sizeOf(document.file_size),
    });
  }
  if (message.voice) {
    const { voice } = message;
    attachments.push({ kind: 'audio', fileName: 'voice.ogg', mimeType: voice.mime_type ?? 'audio/ogg', platformFileId: voice.file_id, ref: voice.file_id, durationSeconds: voice.duration, ...sizeOf(voice.file_size) });
  }
  if (message.audio) {
    const { audio } = message;
    attachments.push({
      kind: 'audio',
      fileName: audio.file_name ?? 'audio',
      ...(audio.mime_type ? { mimeType: audio.mime_type } : {}),
      platformFileId: audio.file_id,
      ref: audio.file_id,
      durationSeconds: audio.duration,
      ...sizeOf(audio.file_size),
    });
  }
  if (message.video_note) {
    const note = message.video_note;
    attachments.push({ kind: 'audio', fileName: 'video-note.mp4', mimeType: 'video/mp4', platformFileId: note.file_id, ref: note.file_id, durationSeconds: note.duration, ...sizeOf(note.file_size) });
  }
  return attachments;
}

function area(size: { width: number; height: number; file_size?: number }): number {
  return size.width * size.height || (size.file_size ?? 0);
}

function sizeOf(size: number | undefined): { size?: number } {
  return size !== undefined ? { size } : {};
}
