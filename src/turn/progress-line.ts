import type { AgentEvent } from '../agent/index.js';
import type { WorkingIndicator } from '../core/channel.js';
import type { SettlingLiveReply } from './live-draft.js';

/**
 * The one line a user sees while a turn runs tools ("Searching the web…", Running `ls`…), from the loop's events:
 * set by each tool step (the label of its first call that declares one; none: no line), cleared when the answer's
 * text comes. The working indicator shows it where it can (Slack's assistant status), the live draft otherwise.
 * Nothing is awaited, stored or recorded: the line is ephemeral, a taken-over turn shows only its own steps' lines.
 * A turn that calls no tool never reaches a platform through here.
 */
export function progressLine(working: WorkingIndicator, draft: Pick<SettlingLiveReply, 'status'> | undefined): (event: AgentEvent) => void {
  let stepOpen = false;
  let stepLabel: string | undefined;
  let onIndicator = false;
  let shown: string | undefined;

  const show = (label: string | undefined): void => {
    if (label === shown) return;
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

  return (event) => {
    switch (event.type) {
      case 'tool-call-start':
        if (!stepOpen) {
          stepOpen = true;
          stepLabel = undefined;
        }
        // parallel calls: the first that says what it does speaks for the step
        if (stepLabel === undefined) {
          stepLabel = event.label;
          show(stepLabel);
        }
        return;
      case 'tool-call-end':
        stepOpen = false;
        return;
      case 'text-delta':
        // the answer is being written: the indicator goes back to its plain self; the draft drops the line in
        // the edit that shows the text (until then the line stays rather than leave an empty draft)
        if (onIndicator) show(undefined);
        else shown = undefined;
        return;
      default:
        return;
    }
  };
}
