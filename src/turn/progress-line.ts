import { isTerminalEvent, type AgentEvent } from '../agent/index.js';
import type { WorkingIndicator } from '../core/channel.js';
import type { SettlingLiveReply } from './live-draft.js';

/**
 * The line appears only once the turn has been in its tools this long: quick tool calls show none, without a flash
 * (as a draft appears only for an answer that takes time to write, see DRAFT_START_DELAY_MS).
 */
export const PROGRESS_LINE_DELAY_MS = 800;

/** The line while an approval prompt is out and the turn waits for the person's answer. */
export const APPROVAL_LINE = 'Waiting for your approval';

export interface ProgressLineOptions {
  delayMs?: number;
  /**
   * A preview an earlier run of the turn left is in the chat (the run before an approval left "Waiting for your
   * approval" in it): a line is up already, so the first step's line replaces it at once, without the delay.
   */
  lineUp?: boolean;
}

export interface ProgressLine {
  onEvent(event: AgentEvent): void;
  /** The turn is over: a line not yet shown never will be (what is shown goes with the answer or the draft). */
  stop(): void;
  /**
   * The turn parks until a person answers its approval prompt (posted already): APPROVAL_LINE is shown at once and
   * left in place, on the indicator where it can hold it (Slack's assistant status), else in the live reply's
   * preview (opened for it if none is up), which the turn's next run adopts and replaces.
   */
  park(): Promise<void>;
}

/**
 * The one line a user sees while a turn runs tools ("Searching the web…", Running `ls`…), from the loop's events:
 * set by each tool step (the label of its first call that declares one; none: no line), shown once the turn has
 * been in tools `delayMs`, replaced at once by later steps, cleared when the answer's text comes. The working
 * indicator shows it where it can (Slack's assistant status), the live draft otherwise. Nothing is awaited,
 * stored or recorded: the line is ephemeral, a taken-over turn shows only its own steps' lines. A turn that calls
 * no tool never reaches a platform (nor sets a timer) through here.
 */
export function progressLine(
  working: WorkingIndicator,
  draft: (Pick<SettlingLiveReply, 'status'> & Partial<Pick<SettlingLiveReply, 'park'>>) | undefined,
  options: ProgressLineOptions = {},
): ProgressLine {
  const delayMs = options.delayMs ?? PROGRESS_LINE_DELAY_MS;
  let stepOpen = false;
  let stepLabel: string | undefined;
  /** The line the current step calls for, shown when the timer fires (or at once when a line is up already). */
  let wanted: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let onIndicator = false;
  let shown: string | undefined = options.lineUp ? APPROVAL_LINE : undefined;
  let stopped = false;

  const show = (label: string | undefined): void => {
    if (stopped || label === shown) return;
    shown = label;
    if (onIndicator && label === undefined) {
      onIndicator = false;
      working.status?.(undefined);
      return;
    }
    if (label !== undefined && working.status?.(label) === true) {
      onIndicator = true;
      return;
    }
    draft?.status(label);
  };
  const cancelTimer = (): void => {
    clearTimeout(timer);
    timer = undefined;
  };
  const request = (label: string | undefined): void => {
    wanted = label;
    // a line is up: the step's own replaces it now; none yet: the first waits until the tools take a while
    if (shown !== undefined) return show(label);
    if (label === undefined || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      show(wanted);
    }, delayMs);
    timer.unref();
  };

  return {
    onEvent(event) {
      switch (event.type) {
        case 'tool-call-start':
          if (!stepOpen) {
            stepOpen = true;
            stepLabel = undefined;
          }
          // parallel calls: the first that says what it does speaks for the step
          if (stepLabel === undefined) {
            stepLabel = event.label;
            request(stepLabel);
          }
          return;
        case 'tool-call-end':
          stepOpen = false;
          return;
        case 'text-delta':
          // the answer is being written: no line is due any more; the indicator goes back to its plain self, the
          // draft drops the line in the edit that shows the text (until then the line stays, not an empty draft)
          cancelTimer();
          wanted = undefined;
          if (onIndicator) show(undefined);
          else shown = undefined;
          return;
        default:
          // the run is over (answered, failed, stopped, parked): a line not shown yet is not due any more
          if (isTerminalEvent(event)) {
            stopped = true;
            cancelTimer();
          }
          return;
      }
    },
    stop() {
      stopped = true;
      cancelTimer();
    },
    async park() {
      stopped = true;
      cancelTimer();
      if (await working.park?.(APPROVAL_LINE)) return;
      await draft?.park?.(APPROVAL_LINE);
    },
  };
}
