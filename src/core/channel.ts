import type { ApprovalPrompt, ApprovalSink } from './approval.js';
import type { ChatMembershipSink } from './chat-membership.js';
import type { CommandButton } from './command-buttons.js';
import type { Attachment, DownloadedFile, OutboundFile } from './attachment.js';
import type { DeliveryProgress } from './delivery-progress.js';
import type { ChannelName, ConversationRef, InboundMessage } from './inbound-message.js';

/** What the gateway hands a webhook route: the raw body (signatures are computed over it) and the headers. */
export interface WebhookRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
}

export interface WebhookResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface WebhookRoute {
  method: 'POST';
  path: string;
  handle(request: WebhookRequest): Promise<WebhookResponse>;
}

/** What happened to one inbound message; a channel turns `rejected` into an HTTP error so the platform retries. */
export type InboundOutcome =
  | { kind: 'queued'; sessionKey: string }
  | { kind: 'duplicate' }
  | { kind: 'ignored'; reason: string }
  | { kind: 'command'; command: string }
  | { kind: 'rejected'; reason: string };

/** Every transport (webhook, polling, socket) ends here: commands answered now, everything else queued. */
export type InboundSink = (message: InboundMessage) => Promise<InboundOutcome>;

export interface DeliveryReceipt {
  /** Platform ids of the messages that carry the reply, in order. */
  messageIds: string[];
}

/** One platform API call as the metrics see it: 429s are told apart from other failures. */
export type PlatformCallResult = 'ok' | 'error' | 'rate_limited';
export type PlatformCallRecorder = (method: string, result: PlatformCallResult) => void;

/** A feedback indicator (typing, reaction, assistant status) shown while a turn works. */
export interface WorkingIndicator {
  stop(): Promise<void>;
  /**
   * One short line of what the turn is doing now ("Searching the web…"), undefined: none. Called only while tools
   * run, never awaited: the indicator coalesces it under the platform's limits. Returns true when the indicator
   * shows the line itself (Slack's assistant status), so the live reply need not; absent or false: it does not.
   */
  status?(label: string | undefined): boolean;
  /**
   * The turn parks to wait for a person (an approval prompt is out): the indicator shows `line` instead of being
   * undone, and keeps it after `stop` until the turn's next run replaces it. Returns false where it cannot hold a
   * line without a running turn (only Slack's assistant status can); the live reply shows it then.
   */
  park?(line: string): Promise<boolean>;
}

/** A reply that is written while the model streams, then settles into the final formatted message(s). */
export interface LiveReply {
  /** The answer so far (Markdown); the channel throttles edits. */
  update(textSoFar: string): void;
  /**
   * Replace the draft with the final formatted answer (split as needed): part 0 is the draft edited in place,
   * the rest are sent, each through `progress`.
   */
  finish(finalMarkdown: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  /** Remove anything half-written (silent or stopped turn). */
  discard(): Promise<void>;
  /**
   * A status line under the text so far while tools run ("Running `ls`…"), undefined: none. Coalesced with the
   * edits; never part of the final answer, which replaces it.
   */
  status?(label: string | undefined): void;
  /**
   * The turn parks (waits for a person): the latest preview (its status line) goes out now and stays in the chat as
   * it is, with no later call; the turn's next run adopts it (LiveReplyOptions.adopt) and finishes the answer in it.
   */
  leave?(): Promise<void>;
}

export interface LiveReplyOptions {
  /** A preview an earlier holder of the turn left in the chat: edited, finished or removed instead of a new one. */
  adopt?: string;
  /** Names the turn's preview for the platform (Feishu's `uuid`, Slack's metadata), the same across takeovers. */
  key?: string;
  /** Learns the preview's id once it is in the chat, so that a takeover can adopt it. */
  onPreview?(messageId: string): void;
}

export interface Channel {
  readonly name: ChannelName;
  readonly accountId: string;
  /** Webhook routes to mount on the gateway (empty in polling / socket modes). */
  webhookRoutes(sink: InboundSink): WebhookRoute[];
  /**
   * True when `startInbound` opens a connection that one process at a time may hold (long polling, Socket
   * Mode, the Feishu long connection): the service runs it under a lease in Redis (CONTRACT §16).
   */
  readonly inboundConnection?: boolean;
  /** Start non-HTTP inbound transports (long polling, Socket Mode, long connection) and one-time registration. */
  startInbound(sink: InboundSink): Promise<void>;
  stopInbound(): Promise<void>;
  /** Render Markdown for the platform, split under its limits, send in order (skipping chunks already delivered). */
  send(to: ConversationRef, markdown: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  /** Plain text, no formatting: command confirmations and apologies (resumable like `send` when `progress` is given). */
  sendNotice(to: ConversationRef, text: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  startWorking(to: ConversationRef): WorkingIndicator;
  /** Optional live streaming of a reply; undefined when the platform or config does not stream here. */
  openLiveReply?(to: ConversationRef, options?: LiveReplyOptions): LiveReply | undefined;
  /** Names a conversation the platform shows under a title (messages marked `titled`: a Slack assistant thread). */
  setConversationTitle?(to: ConversationRef, title: string): Promise<void>;
  /**
   * `/new` here opens a fresh conversation of its own where the platform and the settings allow it (a Telegram
   * private chat in threaded mode with TELEGRAM_NEW_CONVERSATION_TOPIC: a new topic); undefined: not here, and
   * `/new` clears the current session instead.
   */
  openConversation?(from: ConversationRef): Promise<{ conversation: ConversationRef; title: string } | undefined>;
  /** Platform-specific formatting rules for the system prompt's messaging section. */
  promptSection(): string;
  /** Posts an approval request with its three buttons in the turn's chat; returns the platform message id. */
  sendApprovalPrompt?(to: ConversationRef, prompt: ApprovalPrompt, progress?: DeliveryProgress): Promise<string>;
  /** Replaces the request's buttons with the decision (`outcome`, one short line). */
  settleApprovalPrompt?(to: ConversationRef, messageId: string, prompt: ApprovalPrompt, outcome: string): Promise<void>;
  /** Where button clicks go; set before inbound starts (webhook routes, polling, sockets). */
  onApprovalAnswer?(sink: ApprovalSink): void;
  /**
   * A plain-text notice with a button per command (see CommandButton); a click comes back through the inbound sink
   * as that command from the one who clicked. Absent: the notice alone, the commands typed.
   */
  sendCommandButtons?(to: ConversationRef, text: string, buttons: CommandButton[]): Promise<DeliveryReceipt>;
  /**
   * Whether a DM from a user would be admitted (DM_POLICY, allowlist, pairing; no side effects): what the channel
   * asks before it greets someone unprompted (a Slack assistant thread). Unset: everyone may be greeted.
   */
  onDirectAccessCheck?(check: (userId: string) => Promise<boolean>): void;
  /** Where the bot's own membership changes go (removed from or added to a chat); set before inbound starts. */
  onChatMembership?(sink: ChatMembershipSink): void;
  /**
   * Where a topic the platform refused on a send goes (a Telegram forum topic or private-chat topic closed or
   * deleted; the answer itself went to the main chat): a `removed` change naming the topic. Set in every role.
   */
  onTopicGone?(sink: ChatMembershipSink): void;
  /**
   * Fetches an attachment this channel produced, refusing (BotError `too-large`) once more than `maxBytes`
   * arrive. An expired or missing file is a non-retryable BotError.
   */
  downloadAttachment(attachment: Attachment, options: { maxBytes: number; signal?: AbortSignal }): Promise<DownloadedFile>;
  /** Sends one file (a picture shown inline, or a document); returns the platform message id(s). */
  sendFile(to: ConversationRef, file: OutboundFile, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  /**
   * doctor's check of the account's set-up beyond its credentials (Slack: the granted scopes against those the
   * service uses): one line when complete; throws, naming what is missing, when not.
   */
  describeSetup?(): string;
}
