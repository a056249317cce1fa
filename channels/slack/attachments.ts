import type { Attachment, AttachmentKind } from '../../src/core/index.js';

/** The fields of an entry of a message event's `files` the bot reads. */
export interface SlackFile {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private_download?: string;
  url_private?: string;
  /** `hidden_by_limit`, `tombstone`…: not downloadable. */
  mode?: string;
  /** Slack Connect files need files.info first (`check_file_info`); not supported. */
  file_access?: string;
}

/**
 * A message's shared files as references: the ref is the private download URL (fetched with the bot token).
 * Audio clips (Slack's voice "huddle clips" are video/mp4 or audio/*) are transcribed, images looked at,
 * everything else read as a document.
 */
export function attachmentsOf(files: SlackFile[] | undefined): Attachment[] {
  return (files ?? []).flatMap((file): Attachment[] => {
    if (!file.id) return [];
    const url = file.url_private_download ?? file.url_private;
    // a file the bot cannot fetch is still named in the reply (never silent): its download fails with the reason
    const downloadable = url !== undefined && file.mode !== 'hidden_by_limit' && file.mode !== 'tombstone' && file.file_access !== 'check_file_info';
    return [
      {
        kind: kindOf(file.mimetype, file.name),
        ...(file.name ? { fileName: file.name } : {}),
        ...(file.mimetype ? { mimeType: file.mimetype } : {}),
        ...(file.size !== undefined ? { size: file.size } : {}),
        platformFileId: file.id,
        ref: downloadable ? url : `unavailable:${file.id}`,
      },
    ];
  });
}

function kindOf(mimeType: string | undefined, name: string | undefined): AttachmentKind {
  if (mimeType?.startsWith('image/')) return 'image';
  if (mimeType?.startsWith('audio/') || (mimeType === 'video/mp4' && /^audio_message/i.test(name ?? ''))) return 'audio';
  return 'document';
}
