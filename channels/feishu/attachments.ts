import { BotError, type Attachment } from '../../src/core/index.js';

/** How the message resource API finds a file again: `GET /open-apis/im/v1/messages/{messageId}/resources/{fileKey}?type=`. */
export interface FeishuResourceRef {
  messageId: string;
  fileKey: string;
  type: 'image' | 'file';
}

/** The message types that carry nothing but a file. */
export const FILE_MESSAGE_TYPES = new Set(['image', 'file', 'audio', 'media']);

/**
 * The files of a received message as references: an `image`, a `file`, an `audio` clip (opus), a `media`
 * video (its audio track is what the bot can use), and the images embedded in a rich-text `post`.
 */
export function attachmentsOf(messageId: string, messageType: string, content: string): Attachment[] {
  const parsed = parseObject(content);
  if (parsed === undefined) return [];
  const reference = (fileKey: unknown, type: FeishuResourceRef['type']) => (typeof fileKey === 'string' && fileKey !== '' ? JSON.stringify({ messageId, fileKey, type }) : undefined);
  const fileName = typeof parsed.file_name === 'string' && parsed.file_name !== '' ? { fileName: parsed.file_name } : {};
  const durationSeconds = typeof parsed.duration === 'number' ? { durationSeconds: Math.round(parsed.duration / 1000) } : {};
  switch (messageType) {
    case 'image': {
      const ref = reference(parsed.image_key, 'image');
      return ref ? [{ kind: 'image', platformFileId: String(parsed.image_key), ref }] : [];
    }
    case 'file': {
      const ref = reference(parsed.file_key, 'file');
      return ref ? [{ kind: 'document', ...fileName, platformFileId: String(parsed.file_key), ref }] : [];
    }
    case 'audio': {
      const ref = reference(parsed.file_key, 'file');
      return ref ? [{ kind: 'audio', fileName: 'voice.ogg', mimeType: 'audio/ogg', platformFileId: String(parsed.file_key), ref, ...durationSeconds }] : [];
    }
    case 'media': {
      const ref = reference(parsed.file_key, 'file');
      return ref ? [{ kind: 'audio', ...(fileName.fileName ? fileName : { fileName: 'video.mp4' }), mimeType: 'video/mp4', platformFileId: String(parsed.file_key), ref, ...durationSeconds }] : [];
    }
    case 'post':
      return postImageKeys(parsed).flatMap((imageKey): Attachment[] => {
        const ref = reference(imageKey, 'image');
        return ref ? [{ kind: 'image', platformFileId: imageKey, ref }] : [];
      });
    default:
      return [];
  }
}

export function resourceRefOf(attachment: Attachment): FeishuResourceRef {
  try {
    const parsed = JSON.parse(attachment.ref) as Partial<FeishuResourceRef>;
    if (typeof parsed.messageId === 'string' && typeof parsed.fileKey === 'string' && (parsed.type === 'image' || parsed.type === 'file')) {
      return { messageId: parsed.messageId, fileKey: parsed.fileKey, type: parsed.type };
    }
  } catch {
    // fall through
  }
  throw new BotError('not-found', 'the Feishu file reference is unreadable');
}

/** `img` elements of a post (plain or wrapped in a locale key), in reading order. */
function postImageKeys(parsed: Record<string, unknown>): string[] {
  const body = Array.isArray(parsed.content) ? parsed : Object.values(parsed).map(parseValue).find((value) => Array.isArray(value?.content));
  if (!body || !Array.isArray(body.content)) return [];
  return body.content.flatMap((paragraph: unknown) =>
    Array.isArray(paragraph) ? paragraph.map(parseValue).flatMap((element) => (element?.tag === 'img' && typeof element.image_key === 'string' ? [element.image_key] : [])) : [],
  );
}

function parseObject(content: string): Record<string, unknown> | undefined {
  try {
    return parseValue(JSON.parse(content));
  } catch {
    return undefined;
  }
}

function parseValue(value: unknown): Record<string, any> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, any>) : undefined;
}
