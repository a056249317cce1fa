/** What the Slack Web API double records and takes (test/doubles/slack-double.ts). */
export interface SlackCall {
  method: string;
  params: Record<string, any>;
  at: number;
  /** The HTTP status the double answered with. */
  status: number;
  /** true when the double answered with an error (failNext, validation). */
  failed: boolean;
}

export interface SlackFailure {
  /** HTTP status; 429 answers with `Retry-After: retryAfter` (default 1). Default 200 (with `ok: false`). */
  status?: number;
  /** Slack's error code for `ok: false` answers (default `internal_error`). */
  error?: string;
  retryAfter?: number;
  times?: number;
}

export interface SlackDoubleOptions {
  botUserId?: string;
  teamId?: string;
  signingSecret?: string;
  botToken?: string;
  /** false: assistant.threads.setStatus, setSuggestedPrompts and setTitle answer `not_allowed` (not an assistant thread). Default true. */
  assistantThreads?: boolean;
  /**
   * The bot token's scopes, sent as Slack sends them in the `x-oauth-scopes` header of every answer (auth.test
   * included). Default: every scope docs/slack-app-manifest.yaml grants; `null`: no header at all.
   */
  scopes?: readonly string[] | null;
}

/** A file of a message event's `files` array (the fields the bot reads). */
export interface SlackFileObject {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  url_private: string;
  url_private_download: string;
}

/** A file the bot uploaded and completed (files.completeUploadExternal). */
export interface SlackUpload {
  fileId: string;
  fileName: string;
  title: string | undefined;
  bytes: Buffer;
  channel: string | undefined;
  threadTs: string | undefined;
  initialComment: string | undefined;
}
