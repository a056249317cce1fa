import type { Attachment } from '../core/attachment.js';

/** How the reply names an attachment: its file name, or what it is ("the photo", "the voice message"). */
export function attachmentLabel(attachment: Attachment, index: number, total: number): string {
  if (attachment.fileName && attachment.fileName !== 'voice.ogg' && attachment.fileName !== 'video-note.mp4') return `"${attachment.fileName}"`;
  const noun = attachment.kind === 'image' ? 'photo' : attachment.kind === 'audio' ? (attachment.fileName === 'video-note.mp4' ? 'video note' : 'voice message') : 'file';
  return total > 1 ? `${noun} ${index + 1}` : `the ${noun}`;
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** First letter up, for a label that starts a sentence. */
export function capitalized(text: string): string {
  return text.startsWith('"') ? text : text.charAt(0).toUpperCase() + text.slice(1);
}
