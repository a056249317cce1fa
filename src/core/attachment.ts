/** What kind of file a user sent, as the platform declares it (the worker sniffs the bytes before trusting it). */
export type AttachmentKind = 'image' | 'audio' | 'document';

/**
 * A file that came with an inbound message, by reference only: the webhook answers at once and the worker
 * downloads it at turn time through the channel that produced it. Platform-neutral past `channels/<name>/`.
 */
export interface Attachment {
  kind: AttachmentKind;
  /** As the platform names it (sanitized before it touches a disk); absent for photos and voice notes. */
  fileName?: string;
  /** As the platform declares it; never trusted for decoding. */
  mimeType?: string;
  /** Bytes, as the platform declares it. */
  size?: number;
  /** The platform's id of the file, stored with the message (Telegram file_id, Slack file id, Feishu file_key). */
  platformFileId: string;
  /**
   * How the channel fetches the file again, opaque outside the channel (e.g. Slack's url_private_download,
   * Feishu's message id and resource type). JSON-safe.
   */
  ref: string;
  /** Seconds, for voice and audio when the platform says. */
  durationSeconds?: number;
}

/** The bytes of a downloaded attachment. */
export interface DownloadedFile {
  bytes: Buffer;
  /** What the platform's download answered with, if anything (still not trusted for decoding). */
  mimeType?: string;
  fileName?: string;
}

/** A file the bot sends: a picture shown inline, or a document. */
export interface OutboundFile {
  bytes: Buffer;
  fileName: string;
  mimeType: string;
  kind: 'photo' | 'document';
  caption?: string;
}

/** What became of one attachment at turn time. */
export type AttachmentOutcome = 'used' | 'too-large' | 'unsupported' | 'download-failed' | 'transcription-failed' | 'not-supported-here';

/** An attachment as stored with its message: metadata, outcome, and the text it turned into. */
export interface StoredAttachment {
  kind: AttachmentKind;
  fileName?: string;
  /** The sniffed type when the bytes were read, else the platform's declaration. */
  mimeType?: string;
  size?: number;
  platformFileId: string;
  outcome: AttachmentOutcome;
  /** Voice/audio: the transcript. */
  transcript?: string;
  /** Documents: the extracted text as the model saw it (cut at MEDIA_TEXT_MAX_CHARS). */
  extractedText?: string;
  /** Documents: where the file was saved, relative to the workspace. */
  savedAs?: string;
}
