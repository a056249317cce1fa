import type { TraceSpan } from '../agent/agent-events.js';
import { applyInputGuard } from '../agent/index.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { contextKeyOf } from '../core/session-key.js';
import { BotError, errorMessage, isAbortError } from '../core/errors.js';
import { abortReasonOf, isShutdown, type TurnOutcome, type TurnRequest } from '../queue/turn-worker.js';
import type { TurnRecord } from '../store/turn-record.js';
import { openLiveDraft, type SettlingLiveReply } from './live-draft.js';
import { flushWithRetry } from './flush-with-retry.js';
import { runModelTurn } from './run-model.js';
import type { PendingDelivery } from './delivery-records.js';
import { forAgent, type TurnDependencies } from './turn-dependencies.js';
import { buildUserMessages } from './user-messages.js';

export const APOLOGY = 'Sorry, something went wrong while answering. Please try again in a moment.';
/**
 * Turn-level attempts for a failing model (on top of the SDK's own retries): then the user gets an apology.
 * Infrastructure failures (database, Redis) are retried far longer by the worker; they do not end here.
 */
export const MODEL_ATTEMPTS = 4;

/** One turn from claimed messages to a delivered reply and a flushed history. */
export function createTurnRunner(deps: TurnDependencies) {
  const clock = deps.clock ?? Date.now;

  return async function runTurn(request: TurnRequest): Promise<TurnOutcome> {
    const { turnId, sessionKey, messages } = request;
    const log = deps.logger.child({ runId: turnId, sessionKey });
    // Only a turn that ran before can be stored or half-delivered already; a fresh one skips both lookups.
    if (request.resumed) {
      if (await deps.store.runExists(turnId)) return { kind: 'skipped' };
      const computed = await deps.deliveries.get(turnId);
      if (computed) {
        log.info({ delivered: computed.delivered }, 'resuming a turn whose answer was already computed');
        return await finish(request, computed);
      }
    }

    const latest = messages.at(-1)!;
    // the model, tools and prompt of the message's agent, with its chat's overrides
    const agentDeps = forAgent(deps, latest);
    const channel = deps.channels.for(latest.conversation);
    const session = await deps.store.ensureSession(sessionInfo(sessionKey, latest));
    const startedAt = new Date(clock());
    const guarded = messages.map((message) => applyInputGuard(message.text, deps.settings.inputGuard));
    for (const [index, guard] of guarded.entries()) {
      if (guard.findings.length > 0 && deps.settings.inputGuard !== 'off') {
        const level = deps.settings.inputGuard === 'log' ? 'info' : 'warn';
        log[level]({ patterns: guard.findings, dedupeKey: messages[index]!.dedupeKey }, 'security.injection_detected');
      }
    }
    const groupLines = latest.conversation.chatType === 'group' ? await deps.groupContext.peek(contextKeyOf(messages[0]!)) : [];
    const user = buildUserMessages(
      messages,
      groupLines,
      guarded.map((guard) => guard.text),
    );
    const baseRecord = (run: Partial<TurnRecord['run']> & Pick<TurnRecord['run'], 'status'>): TurnRecord => ({
      runId: turnId,
      sessionKey,
      sessionId: session.id,
      messages: [...user.forStore],
      run: {
        silent: false,
        provider: agentDeps.model.provider,
        model: agentDeps.model.model,
        iterations: 0,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        startedAt,
        finishedAt: new Date(clock()),
        deliveredMessageIds: [],
        ...run,
      },
      spans: [],
    });

    if (guarded.some((guard) => guard.blocked)) {
      const notice = guarded.find((guard) => guard.blocked)!.reply ?? APOLOGY;
      const record = baseRecord({ status: 'completed', error: 'input blocked by the input guard' });
      return await finish(request, newDelivery(record, notice, true, groupLines.length));
    }

    const working = channel.startWorking(latest.conversation);
    const live = openLiveDraft(agentDeps, channel, latest, clock);
    try {
      const { terminal, summarizeDue } = await runModelTurn(agentDeps, {
        turnId,
        sessionKey,
        sessionId: session.id,
        latest,
        userMessages: user.forModel,
        signal: request.signal,
        clock,
        ...(live ? { onEvent: live.onEvent } : {}),
      });
      recordSpans(deps, terminal.spans);
      const outcome = {
        iterations: terminal.iterations,
        inputTokens: terminal.usage.inputTokens,
        outputTokens: terminal.usage.outputTokens,
        costUsd: terminal.costUsd,
      };
      const record = (status: TurnRecord['run']['status'], extra: Partial<TurnRecord['run']> = {}): TurnRecord => {
        const base = baseRecord({ status, ...outcome, ...extra });
        const runMessages = terminal.messages.map((message) => ({ ...message, createdAt: new Date(clock()) }));
        return { ...base, messages: [...base.messages, ...runMessages], spans: terminal.spans };
      };

      if (terminal.type === 'run-cancel' || (terminal.type === 'run-error' && isAbortError(terminal.error) && request.signal.aborted)) {
        const reason = abortReasonOf(request.signal);
        if (reason === 'shutdown') return { kind: 'retry', error: new BotError('aborted', 'handed back on shutdown') };
        // Another worker holds this turn now (same turn id): writing anything here would make it skip the turn.
        if (reason === 'leaseLost') return { kind: 'skipped' };
        if (!request.signal.aborted) throw new BotError('internal', 'run cancelled without a signal');
        log.info('turn cancelled');
        await flushWithRetry(deps.store, record('cancelled'), deps.logger, deps.flushRetry);
        await deps.groupContext.consume(contextKeyOf(messages[0]!), groupLines.length);
        return { kind: 'cancelled' };
      }
      if (terminal.type === 'run-error') {
        if (abortReasonOf(request.signal) === 'leaseLost') return { kind: 'skipped' };
        const error = terminal.error;
        const retryable = error instanceof BotError ? error.isRetryable : true;
        const giveUp = request.finalAttempt || request.attempt >= MODEL_ATTEMPTS;
        log.warn({ err: error, retryable, attempt: request.attempt, giveUp }, 'agent run failed');
        if (retryable && !giveUp) return { kind: 'retry', error };
        return await finish(request, newDelivery(record('failed', { error: errorMessage(error) }), APOLOGY, true, groupLines.length));
      }
      // The loop already sanitized the answer and detected NO_REPLY; an empty answer sends nothing either.
      const reply = terminal.type === 'run-end' ? terminal.reply.text : '';
      return await finish(request, { ...newDelivery(record('completed', { silent: reply.length === 0 }), reply, false, groupLines.length), summarizeDue }, live?.reply);
    } catch (error) {
      if (request.signal.aborted && isShutdown(request.signal)) return { kind: 'retry', error };
      throw error;
    } finally {
      // Anything not settled into the final answer (silent, stopped, failed, handed back) leaves no draft behind.
      await live?.reply.discardUnlessFinished();
      await working.stop().catch(() => undefined);
    }
  };

  /** Deliver (once, resuming after the chunks already out), remember the delivery, then write the whole turn. */
  async function finish(request: TurnRequest, pending: PendingDelivery, live?: SettlingLiveReply): Promise<TurnOutcome> {
    const { turnId, sessionKey } = request;
    const { record, reply } = pending;
    const conversation = request.messages.at(-1)!.conversation;
    if (reply && !pending.delivered) {
      await deps.deliveries.save(turnId, pending);
      if (!(await request.holdsLease())) return { kind: 'skipped' };
      const channel = deps.channels.for(conversation);
      const progress = {
        delivered: pending.deliveredIds,
        onDelivered: (messageIds: string[]) => deps.deliveries.save(turnId, { ...pending, deliveredIds: messageIds }),
      };
      try {
        const receipt = pending.plain
          ? await channel.sendNotice(conversation, reply)
          : live?.started
            ? await live.finish(reply, progress)
            : await channel.send(conversation, reply, progress);
        record.run.deliveredMessageIds = receipt.messageIds;
      } catch (error) {
        // Not retryable: the platform refused for good (blocked, chat gone) or may already have posted (5xx).
        const retryable = error instanceof BotError ? error.isRetryable : false;
        if (retryable && !request.finalAttempt) return { kind: 'retry', error };
        deps.logger.warn({ err: error, runId: turnId, sessionKey }, 'reply could not be delivered; storing the turn as failed');
        const saved = await deps.deliveries.get(turnId);
        record.run = { ...record.run, status: 'failed', error: `delivery failed: ${errorMessage(error)}`, deliveredMessageIds: saved?.deliveredIds ?? [] };
      }
      // sends reported every part through `progress`; a notice has no progress, so it is marked delivered here
      if (pending.plain && record.run.status !== 'failed') await deps.deliveries.save(turnId, { ...pending, delivered: true, deliveredIds: record.run.deliveredMessageIds });
    }
    await flushWithRetry(deps.store, record, deps.logger, deps.flushRetry);
    await deps.deliveries.clear(turnId);
    if (pending.summarizeDue) deps.compactor?.compactInBackground(sessionKey);
    if (pending.consumedContext > 0) await deps.groupContext.consume(contextKeyOf(request.messages[0]!), pending.consumedContext);
    if (record.run.status === 'failed') return { kind: 'failed' };
    return { kind: record.run.silent ? 'silent' : 'completed' };
  }
}

function recordSpans(deps: TurnDependencies, spans: TraceSpan[]): void {
  const { metrics } = deps;
  if (!metrics) return;
  for (const span of spans) {
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
    }
    if (span.costUsd) metrics.llmCostUsd.inc(labels, span.costUsd);
  }
}

function newDelivery(record: TurnRecord, reply: string, plain: boolean, consumedContext: number): PendingDelivery {
  return { record, reply, plain, consumedContext, delivered: false, deliveredIds: [] };
}

function sessionInfo(sessionKey: string, message: InboundMessage) {
  const { conversation } = message;
  return {
    key: sessionKey,
    agentId: message.agentId,
    channel: conversation.channel,
    accountId: conversation.accountId,
    chatId: conversation.chatId,
    chatType: conversation.chatType,
    ...(conversation.chatType === 'dm' ? { userId: message.sender.id } : {}),
    ...(message.chatTitle ? { title: message.chatTitle } : {}),
  };
}
