/** Scrapes a service's GET /metrics and reads Prometheus text-format samples. */
export type Samples = Map<string, number>;

export async function scrape(baseUrl: string): Promise<Samples> {
  const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  return parseSamples(await response.text());
}

/** `name{labels} value` lines keyed by `name{labels}` exactly as written (labels in the order the registry prints). */
export function parseSamples(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)/.exec(line);
    if (match) samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

/** Sum of every sample of `name` whose labels include all of `labels`. */
export function sumOf(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [key, value] of samples) {
    const brace = key.indexOf('{');
    const sampleName = brace === -1 ? key : key.slice(0, brace);
    if (sampleName !== name) continue;
    const labelText = brace === -1 ? '' : key.slice(brace);
    if (Object.entries(labels).every(([label, wanted]) => labelText.includes(`${label}="${wanted}"`))) sum += value;
  }
  return sum;
}

/** The counters the benchmark follows, summed over the given processes' scrapes. */
export interface PipelineCounters {
  dbWrite: number;
  dbRead: number;
  dbTransaction: number;
  turns: number;
  turnsCompleted: number;
  turnsRetried: number;
  turnsFailed: number;
  webhooks200: number;
}

/** Event-loop delay since the previous scrape (prom-client resets its histogram on every scrape), worst process. */
export interface EventLoopDelay {
  p99Ms: number;
  maxMs: number;
}

export async function pipelineCounters(baseUrls: string[]): Promise<PipelineCounters & { eventLoop: EventLoopDelay }> {
  const all = await Promise.all(baseUrls.map(scrape));
  const worst = (name: string) => Math.max(0, ...all.map((samples) => sumOf(samples, name) * 1000));
  const total = (name: string, labels: Record<string, string> = {}) => all.reduce((sum, samples) => sum + sumOf(samples, name, labels), 0);
  return {
    dbWrite: total('bot_db_statements_total', { kind: 'write' }),
    dbRead: total('bot_db_statements_total', { kind: 'read' }),
    dbTransaction: total('bot_db_statements_total', { kind: 'transaction' }),
    turns: total('bot_turns_total') - total('bot_turns_total', { outcome: 'retry' }),
    turnsCompleted: total('bot_turns_total', { outcome: 'completed' }),
    turnsRetried: total('bot_turns_total', { outcome: 'retry' }),
    turnsFailed: total('bot_turns_total', { outcome: 'failed' }),
    webhooks200: total('bot_webhook_requests_total', { status: '200' }),
    eventLoop: { p99Ms: worst('nodejs_eventloop_lag_p99_seconds'), maxMs: worst('nodejs_eventloop_lag_max_seconds') },
  };
}

export function counterDelta(after: PipelineCounters, before: PipelineCounters): PipelineCounters {
  const keys = Object.keys(before).filter((key) => key !== 'eventLoop') as Array<keyof PipelineCounters>;
  return Object.fromEntries(keys.map((key) => [key, after[key] - before[key]])) as unknown as PipelineCounters;
}
