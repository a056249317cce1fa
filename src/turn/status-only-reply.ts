import type { LiveReply } from '../core/channel.js';
import type { SettlingLiveReply, TurnPreviewOptions } from './settling-live-reply.js';

/**
 * The live reply of a turn whose answer does not stream (groups by default, LLM_STREAM=false): it carries only the
 * progress line. Nothing is opened until a line is due; then the channel's live reply sends a preview showing the
 * line (recorded in the turn's delivery record like a streamed preview), later lines edit it, and the answer is
 * edited into it (one message in the chat, as a streamed answer finishes its draft). A silent or failed turn removes
 * it. A turn whose tools show no line opens nothing. A preview an earlier run of the turn left (a takeover, or the
 * run before an approval) is adopted at once: the answer goes into it.
 */
export function openStatusOnlyReply(open: () => LiveReply | undefined, options?: TurnPreviewOptions): SettlingLiveReply {
  let live = options?.adopt !== undefined ? open() : undefined;
  let opened = live !== undefined;
  let started = live !== undefined;
  let settled = false;

  const show = (label: string | undefined): void => {
    if (settled) return;
    // no text under the line: clearing it leaves the preview as it is until the answer replaces it
    if (label === undefined) return live?.status?.(undefined);
    if (!opened) {
      opened = true;
      live = open();
    }
    if (!live?.status) return;
    started = true;
    live.status(label);
  };

  return {
    get started() {
      return started;
    },
    status: show,
    async park(line) {
      show(line);
      if (settled || !started || !live?.leave) return;
      settled = true;
      await live.leave();
      await options?.recorded?.();
    },
    async finish(finalMarkdown, progress) {
      settled = true;
      if (!live) throw new Error('a status-only reply that showed nothing has no preview to finish');
      return live.finish(finalMarkdown, progress);
    },
    async discardUnlessFinished() {
      if (settled) return;
      settled = true;
      await live?.discard().catch(() => undefined);
    },
  };
}
