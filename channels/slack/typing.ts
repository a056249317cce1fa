import type { ConversationRef, WorkingIndicator } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { slackErrorCode } from './errors.js';
import type { SlackClients } from './web-clients.js';

export const WORKING_STATUS = 'is thinking…';
export const WORKING_REACTION = 'eyes';

type Undo = () => Promise<unknown>;

/** stop() waits this long for the indicator to be set and cleared; a slower Slack finishes the clearing in the background. */
const STOP_WAIT_MS = 3000;

/**
 * Feedback while a turn works: the assistant thread status where Slack offers it (threads in the bot's
 * DMs), otherwise an 👀 reaction on the triggering message. Both are undone at stop, once they are set.
 * In an assistant thread, `status` puts the turn's progress line ("Searching the web…") in place of
 * "is thinking…", coalesced to one call at a time (the latest line wins). A turn that parks for an approval
 * leaves its line ("Waiting for your approval") instead of clearing the status.
 * No rate-limit waits here: a skipped indicator is better than a turn held up by it.
 */
export function startWorking(clients: SlackClients, to: ConversationRef, logger: Logger): WorkingIndicator {
  const api = clients.repeatable;
  const logFailure = (message: string) => (error: unknown) => {
    logger.debug({ channel: to.chatId, error: slackErrorCode(error) ?? String(error) }, message);
  };

  async function setStatus(): Promise<Undo | undefined> {
    if (to.chatType !== 'dm' || to.threadId === undefined) return undefined;
    const target = { channel_id: to.chatId, thread_ts: to.threadId };
    try {
      await api.assistant.threads.setStatus({ ...target, status: WORKING_STATUS });
      return () => api.assistant.threads.setStatus({ ...target, status: '' });
    } catch (error) {
      logFailure('no assistant status here, using a reaction')(error);
      return undefined;
    }
  }

  async function addReaction(): Promise<Undo | undefined> {
    const target = { channel: to.chatId, timestamp: to.messageId, name: WORKING_REACTION };
    try {
      await api.reactions.add(target);
    } catch (error) {
      // already there (a redelivered turn): still ours to remove when done
      if (slackErrorCode(error) !== 'already_reacted') {
        logFailure('working reaction failed')(error);
        return undefined;
      }
    }
    return () => api.reactions.remove(target);
  }

  const assistantThread = to.chatType === 'dm' && to.threadId !== undefined;
  let usesStatus = assistantThread;
  const started = (async () => {
    const undo = await setStatus();
    if (undo) return undo;
    usesStatus = false;
    return addReaction();
  })();
  let undone: Promise<void> | undefined;
  // the status line while tools run: one call at a time, the latest label wins (labels set meanwhile are skipped)
  let wanted = WORKING_STATUS;
  let sent = WORKING_STATUS;
  let updating: Promise<void> = started.then(() => undefined);
  let queued = false;
  const sendLatest = async (): Promise<void> => {
    queued = false;
    if (undone || !usesStatus || wanted === sent) return;
    const status = wanted;
    try {
      await api.assistant.threads.setStatus({ channel_id: to.chatId, thread_ts: to.threadId!, status });
      sent = status;
    } catch (error) {
      logFailure('assistant status line not set')(error);
    }
  };

  return {
    status(label) {
      if (!usesStatus || undone) return false;
      wanted = label ?? WORKING_STATUS;
      if (!queued) {
        queued = true;
        updating = updating.then(sendLatest);
      }
      return true;
    },
    async park(line) {
      const undo = await started;
      if (!usesStatus || undone || undo === undefined) return false;
      // the line goes after any still being set, and stays: Slack clears it when the turn's next run posts
      undone = updating.then(async () => {
        await api.assistant.threads.setStatus({ channel_id: to.chatId, thread_ts: to.threadId!, status: line });
      });
      try {
        await undone;
        return true;
      } catch (error) {
        logFailure('assistant status line not set')(error);
        undone = undefined;
        return false;
      }
    },
    async stop() {
      undone ??= started.then(async (undo) => {
        // a status line still being set is cleared after it, not before
        await updating;
        await undo?.().catch(logFailure('clearing the working indicator failed'));
      });
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STOP_WAIT_MS);
      });
      await Promise.race([undone, bound]);
      clearTimeout(timer);
    },
  };
}
