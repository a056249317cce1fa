import type { DeliveryProgress, DeliveryReceipt, LiveReply, LiveReplyOptions } from '../../src/core/index.js';

/** What one preview call came to. */
export type PreviewOutcome =
  /** The preview is in the chat as asked (or already was). */
  | 'shown'
  /** Not shown: try again, when the pace allows, with the latest text. */
  | 'retry'
  /** Not shown: try again only once the text changes. */
  | 'wait'
  /** No more previews: the answer is delivered at the end, without one. */
  | 'off';

/** The preview message, edited into the answer's first part when the reply finishes. */
export interface PreviewInPlace<Part> {
  id: string;
  edit(part: Part): Promise<void>;
}

/** What a platform does for a live reply; `openPlatformLiveReply` runs the state machine around it. */
export interface LiveReplyPlatform<Preview, Part> {
  /** The preview the answer so far calls for; undefined while there is nothing to show. */
  previewOf(textSoFar: string): Preview | undefined;
  samePreview(shown: Preview, wanted: Preview): boolean;
  /** Milliseconds until the next preview call may go out (0: now). */
  waitMs(): number;
  /**
   * Sends the preview as a new message (`id` undefined; `posted` learns its id as soon as it is known) or
   * edits it. Never throws: failures come back as an outcome.
   */
  showPreview(preview: Preview, id: string | undefined, posted: (id: string) => void): Promise<PreviewOutcome>;
  /** The reply settled: no preview call will follow. */
  closed?(): void;

  /** The final answer as the parts that carry it. */
  finalParts(finalMarkdown: string): Part[];
  /** Sends the parts in order through `progress`; with `first`, part 0 is edited into the preview instead. */
  deliverParts(parts: Part[], progress: DeliveryProgress | undefined, first?: PreviewInPlace<Part>): Promise<DeliveryReceipt>;
  /** The answer as if nothing had been streamed: no preview was shown, or putting the answer into it failed. */
  deliverNormally(finalMarkdown: string, progress: DeliveryProgress | undefined): Promise<DeliveryReceipt>;
  /** Puts the first part into the preview (`shown`: what it shows now, so an unchanged one need not be edited). */
  editPreview(id: string, part: Part, shown: Preview | undefined): Promise<void>;
  /** Removes the preview; failures are the platform's to log. */
  deletePreview(id: string): Promise<void>;
  /** The final edit failed and the answer goes out normally. */
  finalEditFailed(error: unknown): void;
  /** When the final edit failed: remove the preview before the answer is sent normally (Feishu), not once it is out. */
  removePreviewFirst?: boolean;
}

/**
 * A reply written while the model streams, finished in place: the first update sends a preview, later ones
 * edit it, paced by the platform (the latest text wins, a preview equal to the one shown is not sent again).
 * `finish` edits the answer's first part into the preview and sends the rest; if that edit fails, the answer
 * is sent normally and the preview removed. `discard` removes the preview. A preview an earlier holder of the
 * turn left (`options.adopt`) is edited, finished or removed as if this reply had sent it.
 */
export function openPlatformLiveReply<Preview, Part>(platform: LiveReplyPlatform<Preview, Part>, options: LiveReplyOptions = {}): LiveReply {
  const preview = createPreviewLoop(platform, options);

  async function deletePreview(): Promise<void> {
    const id = preview.takeId();
    if (id !== undefined) await platform.deletePreview(id);
  }

  return {
    update: (textSoFar) => preview.update(textSoFar),
    status: (label) => preview.status(label),

    async finish(finalMarkdown, progress): Promise<DeliveryReceipt> {
      await preview.close();
      const id = preview.id();
      if (id === undefined) return platform.deliverNormally(finalMarkdown, progress);
      const parts = platform.finalParts(finalMarkdown);
      if (parts.length === 0) {
        await deletePreview();
        return { messageIds: [] };
      }
      let editFailed = false;
      const first: PreviewInPlace<Part> = {
        id,
        edit: async (part) => {
          try {
            await platform.editPreview(id, part, preview.shown());
          } catch (error) {
            editFailed = true;
            throw error;
          }
        },
      };
      try {
        const receipt = await platform.deliverParts(parts, progress, first);
        // the message is the answer's first part now, no longer a preview
        preview.takeId();
        return receipt;
      } catch (error) {
        if (!editFailed) throw error;
        platform.finalEditFailed(error);
        const again = progress && { ...progress, inDoubt: undefined };
        if (platform.removePreviewFirst) {
          await deletePreview();
          return platform.deliverNormally(finalMarkdown, again);
        }
        try {
          return await platform.deliverNormally(finalMarkdown, again);
        } finally {
          await deletePreview();
        }
      }
    },

    async discard() {
      await preview.close();
      await deletePreview();
    },

    leave: () => preview.flush(),
  };
}

/** How long `leave` waits for the pace to allow its last preview call. */
const FLUSH_WAIT_LIMIT_MS = 5000;

/** The preview's lifecycle while the model writes: paced calls showing the latest text, until closed. */
function createPreviewLoop<Preview, Part>(platform: LiveReplyPlatform<Preview, Part>, options: LiveReplyOptions) {
  let latest = '';
  let statusLine: string | undefined;
  let shown: Preview | undefined;
  let previewId = options.adopt;
  let waitForNewText = false;
  let off = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  /** The preview the latest text calls for, when it differs from the one shown. */
  function wanted(): Preview | undefined {
    if (waitForNewText) return undefined;
    const preview = platform.previewOf(withStatusLine(latest, statusLine));
    if (preview === undefined || (shown !== undefined && platform.samePreview(shown, preview))) return undefined;
    return preview;
  }

  function schedule(): void {
    if (closed || off || timer !== undefined || inFlight !== undefined) return;
    timer = setTimeout(fire, platform.waitMs());
  }

  function fire(): void {
    timer = undefined;
    if (closed) return;
    // another reply of the chat may have taken the slot meanwhile
    if (platform.waitMs() > 0) return schedule();
    const preview = wanted();
    if (preview === undefined) return;
    inFlight = show(preview).finally(() => {
      inFlight = undefined;
      if (wanted() !== undefined) schedule();
    });
  }

  async function show(preview: Preview): Promise<void> {
    const outcome = await platform.showPreview(preview, previewId, (id) => {
      previewId = id;
      options.onPreview?.(id);
    });
    if (outcome === 'shown') shown = preview;
    else if (outcome === 'wait') waitForNewText = true;
    else if (outcome === 'off') off = true;
  }

  return {
    update(textSoFar: string): void {
      if (closed) return;
      if (textSoFar !== latest) waitForNewText = false;
      latest = textSoFar;
      schedule();
    },
    /** The status line under the text (undefined: none); shown with the next preview call, like new text. */
    status(label: string | undefined): void {
      if (closed || label === statusLine) return;
      statusLine = label;
      waitForNewText = false;
      schedule();
    },
    /** The latest preview goes out now (as soon as the pace allows), then nothing more: the message stays as shown. */
    async flush(): Promise<void> {
      const wasOpen = !closed && !off;
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await inFlight;
      const preview = wasOpen && !off ? wanted() : undefined;
      if (preview !== undefined) {
        const waitMs = platform.waitMs();
        // held back longer (a 429's retry_after): the preview stays as last shown rather than hold the turn
        if (waitMs <= FLUSH_WAIT_LIMIT_MS) {
          if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
          await show(preview);
        }
      }
      platform.closed?.();
    },
    async close(): Promise<void> {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      platform.closed?.();
      await inFlight;
    },
    id: () => previewId,
    shown: () => shown,
    /** The preview's id, which this reply no longer owns. */
    takeId(): string | undefined {
      const id = previewId;
      previewId = undefined;
      return id;
    },
  };
}

/** Markdown's inline punctuation, escaped so that a label shows as written (its code spans kept). */
const MARKDOWN_PUNCTUATION = /[\\*_[\]<>~|#]/g;

/**
 * The preview's Markdown: the answer so far with the status line in italics (`*…*`, what Feishu's card Markdown reads too) under it (alone while there is no
 * text yet). Backticks stay: a label's code span (Running `ls`…) is shown as code.
 */
export function withStatusLine(textSoFar: string, label: string | undefined): string {
  if (label === undefined) return textSoFar;
  // code spans as they are, the rest escaped
  const escaped = label
    .split(/(`[^`]*`)/)
    .map((piece, index) => (index % 2 === 1 ? piece : piece.replace(MARKDOWN_PUNCTUATION, (character) => `\\${character}`)))
    .join('');
  const line = `*${escaped}*`;
  return textSoFar.trim() === '' ? line : `${textSoFar.trimEnd()}\n\n${line}`;
}
