import type { TraceSpan } from '../agent/agent-events.js';
import { stopRequestsOfTurn } from '../approvals/index.js';
import { BudgetExceededError, budgetNotice } from '../budgets/index.js';
import { BotError, errorMessage, isAbortError } from '../core/errors.js';
import { contextKeyOf } from '../core/session-key.js';
import { abortReasonOf } from '../core/turn-abort.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { TurnOutcome, TurnRequest } from '../core/turn-contract.js';
import type { TurnRecord } from '../store/turn-record.js';
import type { SavedDelivery } from './delivery-records.js';
import { finishTurn, newDelivery } from './finish-turn.js';
import { livePreviewOptions, openLiveDraft } from './live-draft.js';
import { progressLine } from './progress-line.js';
import type { TerminalEvent } from '../agent/index.js';
import { withMediaNotices } from '../media/index.js';
import { runModelTurn } from './run-model.js';
import { startWorkingAfter } from './working-indicator.js';
import { withChosenModel } from './chosen-model.js';
import { mediaCharges } from './media-charges.js';
import { prepareTurnMedia } from './turn-media.js';
import { namesOf, sessionInfoOf } from './session-info.js';
import { isTooLongForModel, leftOutOfContext, TOO_LONG_REPLY } from './too-long.js';
import { buildTurnInput } from './turn-input.js';
import { firstExchangeTitle, showConversationTitle } from './conversation-title.js';
import { forAgent, type TurnDependencies } from './turn-dependencies.js';

export const APOLOGY = 'Sorry, something went wrong while answering. Please try again in a moment.';

/** One turn from claimed messages to a delivered reply and a flushed history. */
export function createTurnRunner(deps: TurnDependencies) {
  const clock = deps.clock ?? Date.now;

  return async function runTurn(request: TurnRequest): Promise<TurnOutcome> {
    const { turnId, sessionKey, messages } = request;
    // the queue worker runs every turn inside its log context: each line carries runId and sessionKey already
    const log = deps.logger;
    // Only a turn that ran before can be stored or half-delivered already; a fresh one skips both lookups.
    let saved: SavedDelivery | undefined;
    if (request.resumed) {
      if (await deps.store.runExists(turnId)) return { kind: 'skipped' };
      saved = await deps.deliveries.load(sessionKey, turnId);
      if (saved?.pending) {
        log.info({ delivered: saved.streams.answer?.sent.length ?? 0, inDoubt: saved.streams.answer?.doubt !== undefined }, 'resuming a turn whose answer was already computed');
        return await finishTurn(deps, request, saved.pending, undefined, saved);
      }
    }

    const latest = messages.at(-1)!;
    // the model, tools and prompt of the message's agent, with its chat's overrides
    const agent = await forAgent(deps, latest, request.signal);
    const channel = deps.channels.for(latest.conversation);
    const latestText = request.messages.map((message) => message.text).join('\n');
    // asked for before the session is opened: a new session's history and its sender's memories are two reads of
    // PostgreSQL, made at once rather than one after the other (a returning session has both in memory)
    const memories = memoryLinesFor(agent, latest, latestText, sessionKey);
    const session = await deps.store.openSession(sessionInfoOf(sessionKey, latest), request.historyVersion, request.conversation);
    // the session's (or its chat's) /model choice comes with the session (no read of its own), then every call is budget-checked
    const agentDeps = await withBudget(withChosenModel(agent, session), latest);
    const startedAt = new Date(clock());
    const groupLines = latest.conversation.chatType === 'group' ? await deps.groupContext.claim(contextKeyOf(messages[0]!), turnId) : [];
    const media = await prepareTurnMedia(agentDeps, messages, channel, request.signal);
    const user = buildTurnInput(messages, groupLines, deps.settings.inputGuard, log, media);
    const charges = mediaCharges(user.spans);
    if (charges.costUsd > 0) await deps.budgets?.charge?.(latest, charges.costUsd);
    // a new session's row is being inserted meanwhile: the turn waits for its id only here (see OpenedSession.id)
    const record = async (run: Partial<TurnRecord['run']> & Pick<TurnRecord['run'], 'status'>, terminal?: TerminalEvent): Promise<TurnRecord> => ({
      runId: turnId,
      sessionKey,
      sessionId: await session.id,
      messages: [...user.forStore, ...(terminal?.messages ?? []).map((message) => ({ ...message, createdAt: new Date(clock()) }))],
      run: {
        silent: false,
        ...answeringModel(terminal?.spans ?? [], agentDeps.model),
        iterations: terminal?.iterations ?? 0,
        inputTokens: (terminal?.usage.inputTokens ?? 0) + charges.usage.inputTokens,
        outputTokens: (terminal?.usage.outputTokens ?? 0) + charges.usage.outputTokens,
        cacheReadTokens: terminal?.usage.cacheReadTokens ?? 0,
        cacheWriteTokens: terminal?.usage.cacheWriteTokens ?? 0,
        costUsd: (terminal?.costUsd ?? 0) + charges.costUsd,
        startedAt,
        finishedAt: new Date(clock()),
        deliveredMessageIds: [],
        ...run,
      },
      spans: [...user.spans, ...(terminal?.spans ?? [])],
      ...namesOf(messages),
      conversation: session.conversation,
    });

    if (user.blockedReply) {
      return await finishTurn(deps, request, newDelivery(await record({ status: 'completed', error: 'input blocked by the input guard' }), user.blockedReply, true));
    }

    const working = startWorkingAfter(() => channel.startWorking(latest.conversation), deps.settings.typingDelayMs ?? 0);
    const previewOptions = livePreviewOptions(deps, request, saved);
    const live = openLiveDraft(agentDeps, channel, latest, clock, previewOptions);
    const progress = progressLine(working, live?.reply, { lineUp: previewOptions.adopt !== undefined });
    try {
      const { terminal, summarizeDue } = await runModelTurn(agentDeps, {
        turnId,
        sessionKey,
        session,
        sessionInfo: sessionInfoOf(sessionKey, latest),
        holder: request.holder,
        resumed: request.resumed,
        latest,
        memories,
        user,
        signal: request.signal,
        clock,
        onEvent: live ? (event) => (live.onEvent(event), progress.onEvent(event)) : progress.onEvent,
      });
      // nothing is stored or sent: the saved steps are the turn's state until a person answers
      if (terminal.type === 'run-park') {
        // the approval prompt is out: "Waiting for your approval" stays until the turn's next run replaces it
        await progress.park();
        // /stop came after the prompt went out but before the turn parked: it found the turn running, not waiting,
        // so nothing settled the request; the turn ends as a stop of a waiting turn does
        const stopped = async (): Promise<TurnOutcome> => {
          if (agentDeps.approvals) await stopRequestsOfTurn({ records: agentDeps.approvals, channels: deps.channels, logger: log }, sessionKey, turnId);
          log.info('turn stopped while it parked for an approval');
          return await finishTurn(deps, request, newDelivery(await record({ status: 'cancelled' }, terminal), '', false));
        };
        return { kind: 'parked', untilMs: terminal.untilMs, stopped };
      }
      recordSpans(deps, terminal.spans);

      if (terminal.type === 'run-cancel' || (terminal.type === 'run-error' && isAbortError(terminal.error))) {
        const reason = abortReasonOf(request.signal);
        if (reason === 'shutdown') return { kind: 'retry', error: new BotError('aborted', 'handed back on shutdown') };
        // Another worker holds this turn now (same turn id; a checkpoint found out before the signal did):
        // writing anything here would make that worker skip the turn.
        const stoppedWhileWaiting = terminal.type === 'run-cancel' && terminal.by === 'user';
        if (reason === 'leaseLost' || (!request.signal.aborted && !stoppedWhileWaiting)) return { kind: 'skipped' };
        log.info('turn cancelled');
        return await finishTurn(deps, request, newDelivery(await record({ status: 'cancelled' }, terminal), '', false));
      }
      if (terminal.type === 'run-error' && terminal.error instanceof BudgetExceededError) {
        const refusal = terminal.error;
        log.info({ scope: refusal.scope, limitUsd: refusal.limitUsd, notify: refusal.notify }, 'daily budget used up: the model was not called');
        // one notice per chat per day (decided in the same Redis round trip as the refusal); later refusals are silent
        const notice = refusal.notify ? budgetNotice(refusal) : '';
        return await finishTurn(deps, request, newDelivery(await record({ status: 'budget_exceeded', error: refusal.message }, terminal), notice, true));
      }
      if (terminal.type === 'run-error' && isTooLongForModel(terminal.error)) {
        // not retried: the same request would be refused again; kept out of later turns so the chat goes on
        log.warn({ err: terminal.error }, 'the model refused the turn as too long even after compaction and trimming');
        const stored = leftOutOfContext(await record({ status: 'failed', error: errorMessage(terminal.error) }, terminal));
        return await finishTurn(deps, request, newDelivery(stored, TOO_LONG_REPLY, true));
      }
      if (terminal.type === 'run-error') {
        const error = terminal.error;
        const retryable = error instanceof BotError ? error.isRetryable : true;
        log.warn({ err: error, retryable, attempt: request.attempt }, 'agent run failed');
        // a retryable failure (the whole model chain down) keeps the user's messages: the queue retries the turn,
        // tells its user once that it keeps trying, and after its last round keeps it as a dead letter (TURN_RETRY).
        // Each attempt continues after the steps the previous one saved, so only the failed request is repeated.
        if (retryable) return { kind: 'retry', error };
        return await finishTurn(deps, request, newDelivery(await record({ status: 'failed', error: errorMessage(error) }, terminal), APOLOGY, true));
      }
      // The loop already sanitized the answer and detected NO_REPLY; an empty answer sends nothing either.
      const reply = withMediaNotices(terminal.reply.text, user.notices);
      // a conversation the platform titles is named by its first exchange: stored with the turn as the session's title
      const title = firstExchangeTitle(messages, session, reply);
      const completed = await record({ status: 'completed', silent: reply.length === 0 }, terminal);
      const pending = { ...newDelivery(title ? { ...completed, chatTitle: title } : completed, reply, false), summarizeDue };
      const outcome = await finishTurn(deps, request, pending, live?.reply);
      if (title && outcome.kind === 'completed') await showConversationTitle(channel, latest.conversation, title, log);
      return outcome;
    } catch (error) {
      if (abortReasonOf(request.signal) === 'shutdown') return { kind: 'retry', error };
      throw error;
    } finally {
      progress.stop();
      // Anything not settled into the final answer (silent, stopped, failed, handed back) leaves no draft behind.
      await live?.reply.discardUnlessFinished();
      await working.stop().catch(() => undefined);
    }
  };
}

/** The turn's model, charging every call to the message's user, chat and agent budgets (when budgets are on). */
async function withBudget(deps: TurnDependencies, message: InboundMessage): Promise<TurnDependencies> {
  if (!deps.budgets) return deps;
  return { ...deps, model: await deps.budgets.guard(deps.model, message) };
}

/** The model that wrote the turn's last answer (a fallback after a failover); no answer: the agent's model. */
function answeringModel(spans: TraceSpan[], model: { provider: string; model: string }): { provider: string; model: string } {
  const answered = spans.findLast((span) => span.kind === 'llm' && !span.error && !span.purpose && !span.parentToolCallId);
  return answered?.kind === 'llm' ? { provider: answered.provider, model: answered.model } : { provider: model.provider, model: model.model };
}

function recordSpans(deps: TurnDependencies, spans: TraceSpan[]): void {
  const { metrics } = deps;
  if (!metrics) return;
  for (const span of spans) {
    // approvals are not calls; media spans have their own metrics (bot_attachments_total, bot_transcription_seconds)
    if (span.kind === 'approval' || span.kind === 'media') continue;
    if (span.kind === 'tool') {
      metrics.toolCalls.inc({ tool: span.name, outcome: span.isError ? 'error' : 'ok' });
      continue;
    }
    const labels = { provider: span.provider, model: span.model };
    metrics.llmCalls.inc({ ...labels, result: span.error ? 'error' : 'ok' });
    metrics.llmSeconds.observe(labels, span.durationMs / 1000);
    if (span.usage) {
      metrics.llmTokens.inc({ ...labels, direction: 'input' }, span.usage.inputTokens);
      metrics.llmTokens.inc({ ...labels, direction: 'output' }, span.usage.outputTokens);
      if (span.usage.cacheReadTokens) metrics.llmTokens.inc({ ...labels, direction: 'cache_read' }, span.usage.cacheReadTokens);
      if (span.usage.cacheWriteTokens) metrics.llmTokens.inc({ ...labels, direction: 'cache_write' }, span.usage.cacheWriteTokens);
    }
    if (span.costUsd) metrics.llmCostUsd.inc(labels, span.costUsd);
  }
}

/**
 * The memory section's lines for a turn, chosen by its new messages (`query`). Memory is an aid, not a
 * precondition: a failing read answers without it (the promise never rejects).
 */
function memoryLinesFor(deps: TurnDependencies, latest: InboundMessage, query: string, sessionKey: string): Promise<string[]> {
  if (!deps.memoryLines) return Promise.resolve([]);
  return deps.memoryLines(latest, query).catch((error: unknown) => {
    deps.logger.warn({ err: error, sessionKey }, 'could not read memories; answering without the memory section');
    return [] as string[];
  });
}
