import { couldBeSilentReply, sanitizeAssistantContent, type AgentEvent } from '../agent/index.js';
import type { Channel, LiveReply } from '../core/channel.js';
import type { TurnRequest } from '../core/turn-contract.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { SavedDelivery } from './delivery-records.js';
import type { SettlingLiveReply, TurnPreviewOptions } from './settling-live-reply.js';
import { openStatusOnlyReply } from './status-only-reply.js';
import type { TurnDependencies } from './turn-dependencies.js';

/** How often the draft text is re-sanitized and handed to the channel (which throttles its edits further). */
const DRAFT_REFRESH_MS = 250;
/** A draft appears only once an answer takes this long to write; quick answers arrive whole, without a flash. */
export const DRAFT_START_DELAY_MS = 800;

export type { SettlingLiveReply, TurnPreviewOptions } from './settling-live-reply.js';

const IGNORE_EVENTS = (): void => undefined;

/**
 * The reply written while the model streams: the current answer's text (reset when the model turns to
 * tools, or when a failed model's attempt is handed to a fallback), sanitized, and held back while it could
 * still turn out to be NO_REPLY. This is the only place that decides it: channels show what they are given.
 * Where the answer does not stream here (a group by default, LLM_STREAM=false), the reply carries only the progress
 * line, opened when the first line is due (status-only-reply.ts).
 */
export function openLiveDraft(
  deps: TurnDependencies,
  channel: Channel,
  latest: InboundMessage,
  clock: () => number,
  options?: TurnPreviewOptions,
): { onEvent: (event: AgentEvent) => void; reply: SettlingLiveReply } | undefined {
  if (!channel.openLiveReply) return undefined;
  const wanted = deps.settings.liveReplies === 'all' || (deps.settings.liveReplies === 'dm' && latest.conversation.chatType === 'dm');
  if (!wanted) return { onEvent: IGNORE_EVENTS, reply: openStatusOnlyReply(() => channel.openLiveReply?.(latest.conversation, options), options) };
  const live: LiveReply | undefined = channel.openLiveReply(latest.conversation, options);
  if (!live) return undefined;
  let raw = '';
  let firstDeltaAt: number | undefined;
  let lastRefresh = 0;
  // a preview an earlier holder left is in the chat already: the answer goes into it
  let started = options?.adopt !== undefined;
  let settled = false;
  let statusShown = false;

  const refresh = () => {
    const now = clock();
    firstDeltaAt ??= now;
    if (settled || now - firstDeltaAt < DRAFT_START_DELAY_MS || now - lastRefresh < DRAFT_REFRESH_MS) return;
    lastRefresh = now;
    const shown = sanitizeAssistantContent(raw);
    if (shown === '' || couldBeSilentReply(shown)) return;
    started = true;
    if (statusShown) {
      // the answer is being written: the line goes in the same edit as its text
      statusShown = false;
      live.status?.(undefined);
    }
    live.update(shown);
  };

  const showStatus = (label: string | undefined): void => {
    if (settled || !live.status || (label === undefined && !statusShown)) return;
    statusShown = label !== undefined;
    // a preview showing only the line is the reply's too: the answer is edited into it
    if (statusShown) started = true;
    live.status(label);
  };

  return {
    onEvent(event) {
      if (event.type === 'text-delta') {
        raw += event.text;
        refresh();
      } else if (event.type === 'tool-call-start') {
        raw = ''; // the text before a tool call was a preamble; the answer comes after the tools
      } else if (event.type === 'model-failover') {
        // the failed attempt's text is void: the draft shows it until the fallback's answer is edited over it
        raw = '';
      }
    },
    reply: {
      get started() {
        return started;
      },
      status: showStatus,
      async park(line) {
        if (settled || !live.status || !live.leave) return;
        showStatus(line);
        settled = true;
        await live.leave();
        await options?.recorded?.();
      },
      async finish(finalMarkdown, progress) {
        settled = true;
        return live.finish(finalMarkdown, progress);
      },
      async discardUnlessFinished() {
        if (settled) return;
        settled = true;
        await live.discard().catch(() => undefined);
      },
    },
  };
}

/**
 * The live reply's link to the delivery record: its preview is recorded once shown (one write a streamed reply),
 * and a preview an earlier holder recorded is adopted instead of a second one being sent.
 */
export function livePreviewOptions(deps: TurnDependencies, request: TurnRequest, saved: SavedDelivery | undefined): TurnPreviewOptions {
  const lease = { sessionKey: request.sessionKey, turnId: request.turnId, holder: request.holder };
  const adopt = saved?.streams.live?.sent[0];
  let recording: Promise<void> = Promise.resolve();
  return {
    key: `${request.turnId}.live`,
    ...(adopt !== undefined ? { adopt } : {}),
    onPreview: (messageId) => {
      recording = deps.deliveries.recordPreview(lease, messageId).catch((error: unknown) => deps.logger.warn({ err: error, runId: request.turnId }, 'could not record the live preview'));
    },
    recorded: () => recording,
  };
}
