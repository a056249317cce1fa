import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The resolution of the event-loop delay the default metrics record (`nodejs_eventloop_lag_*`): a timer of the loop
 * that fires this often. prom-client's 10 ms woke an idle process 100 times a second, more than everything else it
 * does at rest together (some 14 wake-ups a second with it at 100 ms); a stall long enough to matter still shows in
 * the maximum and the percentiles.
 */
export const EVENT_LOOP_MONITORING_PRECISION_MS = 100;

/** The service's Prometheus metrics; one registry per process, scraped at GET /metrics. */
export class Metrics {
  readonly registry = new Registry();

  readonly webhookRequests = new Counter({
    name: 'bot_webhook_requests_total',
    help: 'Webhook requests by channel and HTTP status',
    labelNames: ['channel', 'status'] as const,
    registers: [this.registry],
  });

  readonly webhookAckSeconds = new Histogram({
    name: 'bot_webhook_ack_seconds',
    help: 'Time from a webhook request to its answer',
    labelNames: ['channel'] as const,
    buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly httpConnectionsRefused = new Counter({
    name: 'bot_http_connections_refused_total',
    help: 'Connections closed on arrival because their address already held HTTP_MAX_CONNECTIONS_PER_ADDRESS',
    registers: [this.registry],
  });

  readonly adminLoginFailures = new Counter({
    name: 'bot_admin_login_failures_total',
    help: 'Admin requests with a wrong user or password (refused: 401, slowed down after the first few) and requests from an address locked out after too many (locked: 429)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly pairingRefused = new Counter({
    name: 'bot_pairing_refused_total',
    help: 'Strangers told to try later because the platform already had the maximum of pending pairing codes',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });

  readonly scheduledFirings = new Counter({
    name: 'bot_scheduled_firings_total',
    help: 'Scheduled task firings by result (queued, duplicate, skipped) when handed to the session',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly chatMembershipChanges = new Counter({
    name: 'bot_chat_membership_changes_total',
    help: 'The platform said the bot was removed from a chat (kicked, left, blocked, uninstalled) or added back',
    labelNames: ['channel', 'change'] as const,
    registers: [this.registry],
  });

  readonly scheduledDeliveryFailures = new Counter({
    name: 'bot_scheduled_delivery_failures_total',
    help: "Scheduled task firings whose answer could not be delivered (the task's last outcome says why)",
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });

  readonly deliveriesInDoubt = new Counter({
    name: 'bot_deliveries_in_doubt_total',
    help: 'Message parts a worker died while sending, by how the takeover settled them (found, not_sent, idempotent_resend, unverified_resend)',
    labelNames: ['channel', 'resolution'] as const,
    registers: [this.registry],
  });

  readonly turnsTakenOver = new Counter({
    name: 'bot_turns_taken_over_total',
    help: 'Turns of workers that stopped beating (killed, crashed) whose leases were expired early for another worker to resume',
    registers: [this.registry],
  });

  readonly turns = new Counter({
    name: 'bot_turns_total',
    help: 'Finished turns by outcome (completed, silent, failed, cancelled, retry, skipped)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly turnSeconds = new Histogram({
    name: 'bot_turn_duration_seconds',
    help: 'Duration of a turn from slot acquired to stored',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly llmCalls = new Counter({
    name: 'bot_llm_calls_total',
    help: 'LLM calls by provider, model and result',
    labelNames: ['provider', 'model', 'result'] as const,
    registers: [this.registry],
  });

  readonly llmFailovers = new Counter({
    name: 'bot_llm_failovers_total',
    help: 'Model calls handed to the next model of a failover chain, by the model left (provider:model) and why (its error code, or cooldown when it was skipped)',
    labelNames: ['model', 'reason'] as const,
    registers: [this.registry],
  });

  readonly llmSeconds = new Histogram({
    name: 'bot_llm_call_seconds',
    help: 'LLM call latency',
    labelNames: ['provider', 'model'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly llmTokens = new Counter({
    name: 'bot_llm_tokens_total',
    help: 'LLM tokens by provider, model and direction',
    labelNames: ['provider', 'model', 'direction'] as const,
    registers: [this.registry],
  });

  readonly llmCostUsd = new Counter({
    name: 'bot_llm_cost_usd_total',
    help: 'LLM cost in US dollars by provider and model',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });

  readonly llmSpendUsd = new Counter({
    name: 'bot_llm_spend_usd_total',
    help: 'LLM spend in US dollars by agent and channel (as charged against the daily budgets)',
    labelNames: ['agent', 'channel'] as const,
    registers: [this.registry],
  });

  readonly budgetRefusals = new Counter({
    name: 'bot_budget_refusals_total',
    help: 'Model calls refused because a daily budget (user, chat or agent) was used up',
    labelNames: ['scope', 'agent', 'channel'] as const,
    registers: [this.registry],
  });

  readonly toolCalls = new Counter({
    name: 'bot_tool_calls_total',
    help: 'Tool calls by tool and outcome',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly platformCalls = new Counter({
    name: 'bot_platform_api_calls_total',
    help: 'Platform API calls by channel and result (ok, error, rate_limited)',
    labelNames: ['channel', 'result'] as const,
    registers: [this.registry],
  });

  readonly databaseStatements = new Counter({
    name: 'bot_db_statements_total',
    help: 'SQL statements sent to PostgreSQL, by kind (write: insert/update/delete, read, transaction control)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly mcpServerUp = new Gauge({
    name: 'bot_mcp_server_up',
    help: 'MCP server connections of this process: 1 connected (its tools are offered), 0 down',
    labelNames: ['server'] as const,
    registers: [this.registry],
  });

  readonly mcpToolCalls = new Counter({
    name: 'bot_mcp_tool_calls_total',
    help: 'MCP tool calls by server, tool and outcome (ok, tool_error, timeout, cancelled, failed, unavailable)',
    labelNames: ['server', 'tool', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly mcpErrors = new Counter({
    name: 'bot_mcp_errors_total',
    help: 'MCP server errors by server and kind (connect, disconnect, protocol, list)',
    labelNames: ['server', 'kind'] as const,
    registers: [this.registry],
  });

  readonly mcpCallSeconds = new Histogram({
    name: 'bot_mcp_tool_call_seconds',
    help: 'MCP tool call latency',
    labelNames: ['server', 'tool'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly attachments = new Counter({
    name: 'bot_attachments_total',
    help: 'Inbound attachments by kind (image, audio, document) and outcome (used, too-large, unsupported, download-failed, transcription-failed, not-supported-here)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly attachmentDownloadBytes = new Counter({
    name: 'bot_attachment_download_bytes_total',
    help: 'Bytes of attachments downloaded from the platforms',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });

  readonly transcriptionSeconds = new Histogram({
    name: 'bot_transcription_seconds',
    help: 'Voice and audio transcription latency',
    buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  private queueSampler: (() => Promise<Array<{ queue: string; state: string; count: number }>>) | undefined;

  readonly queueJobs: Gauge<'queue' | 'state'> = new Gauge({
    name: 'bot_queue_jobs',
    help: 'Jobs per queue and state (sampled at scrape)',
    labelNames: ['queue', 'state'] as const,
    registers: [this.registry],
    collect: async () => {
      for (const { queue, state, count } of (await this.queueSampler?.().catch(() => [])) ?? []) {
        this.queueJobs.set({ queue, state }, count);
      }
    },
  });

  /** How to read queue depths when Prometheus scrapes. */
  sampleQueuesWith(sampler: () => Promise<Array<{ queue: string; state: string; count: number }>>): void {
    this.queueSampler = sampler;
  }

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_PRECISION_MS });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

const WRITE = /^\s*(insert|update|delete)\b/i;
const WRITING_CTE = /^\s*with\b[\s\S]*\b(insert\s+into|update\s+\S+\s+set|delete\s+from)\b/i;
const TRANSACTION = /^\s*(begin|commit|rollback|savepoint|release)\b/i;

type StatementKind = 'write' | 'read' | 'transaction';

/** Kinds of the statement texts seen (a few dozen: values travel as parameters); a long CTE costs the regexes ~10 µs. */
const kinds = new Map<string, StatementKind>();
const KINDS_LIMIT = 1_000;

export function statementKind(statement: string): StatementKind {
  let kind = kinds.get(statement);
  if (kind === undefined) {
    kind = TRANSACTION.test(statement) ? 'transaction' : WRITE.test(statement) || WRITING_CTE.test(statement) ? 'write' : 'read';
    if (kinds.size >= KINDS_LIMIT) kinds.clear();
    kinds.set(statement, kind);
  }
  return kind;
}
