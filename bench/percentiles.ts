/** Nearest-rank percentiles and small summaries of latency samples (milliseconds). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const count = samples.length;
  const mean = count === 0 ? Number.NaN : samples.reduce((sum, value) => sum + value, 0) / count;
  return {
    count,
    p50: round(percentile(samples, 50)),
    p90: round(percentile(samples, 90)),
    p99: round(percentile(samples, 99)),
    max: round(samples.reduce((max, value) => Math.max(max, value), count === 0 ? Number.NaN : -Infinity)),
    mean: round(mean),
  };
}

/** Two decimals; NaN becomes null in JSON anyway. */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
