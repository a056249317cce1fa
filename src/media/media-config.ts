/** Limits and the transcription endpoint of the attachment pipeline (CONTRACT §10). */
export interface MediaConfig {
  /** MEDIA_MAX_BYTES: a file over this is refused (checked on the declared size, then while downloading). */
  maxBytes: number;
  /** MEDIA_TEXT_MAX_CHARS: a document's text is cut here, with a note. */
  textMaxChars: number;
  /** MEDIA_MAX_IMAGES: images per turn that reach the model; the rest are named as skipped. */
  maxImages: number;
  /** MEDIA_GROUP_WAIT_MS: how long the first update of a Telegram album waits for the rest. */
  groupWaitMs: number;
  /** MEDIA_CACHE_MAX_BYTES: the bound of `DATA_DIR/media-cache/` (downloads kept for retries); 0 turns it off. */
  cacheMaxBytes: number;
  /** Absent: no API key, voice messages are answered with "not supported here". */
  transcribe: TranscribeConfig | undefined;
}

export interface TranscribeConfig {
  /** OpenAI-compatible base URL, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string;
  model: string;
}

export const MEDIA_DEFAULTS = {
  maxBytes: 20_971_520,
  textMaxChars: 100_000,
  maxImages: 8,
  groupWaitMs: 1_000,
  cacheMaxBytes: 268_435_456,
  transcribeModel: 'gpt-4o-mini-transcribe',
} as const;
