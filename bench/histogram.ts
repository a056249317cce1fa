import { sumOf, type Samples } from './prometheus.js';

/** A Prometheus histogram's cumulative buckets (upper bound `le` in the metric's unit → observations at or below). */
export interface Buckets {
  bounds: number[];
  counts: number[];
}

/** The buckets of `name` summed over every label set and every process's scrape. */
export function bucketsOf(scrapes: Samples[], name: string): Buckets {
  const bounds = new Set<number>();
  for (const samples of scrapes) {
    for (const key of samples.keys()) {
      if (!key.startsWith(`${name}_bucket{`)) continue;
      const le = /le="([^"]+)"/.exec(key)?.[1];
      if (le !== undefined) bounds.add(le === '+Inf' ? Infinity : Number(le));
    }
  }
  const sorted = [...bounds].sort((a, b) => a - b);
  const counts = sorted.map((bound) => {
    const le = bound === Infinity ? '+Inf' : String(bound);
    return scrapes.reduce((sum, samples) => sum + sumOf(samples, `${name}_bucket`, { le }), 0);
  });
  return { bounds: sorted, counts };
}

/** What was observed between two readings of the same histogram (a process that restarted in between counts from 0). */
export function bucketsDelta(after: Buckets, before: Buckets): Buckets {
  const countBefore = (bound: number) => before.counts[before.bounds.indexOf(bound)] ?? 0;
  return { bounds: after.bounds, counts: after.bounds.map((bound, index) => Math.max(0, after.counts[index]! - countBefore(bound))) };
}

/**
 * The q-quantile, interpolated linearly inside its bucket as PromQL's `histogram_quantile` does (a quantile that
 * falls in the +Inf bucket is the highest finite bound), or null with no observations.
 */
export function quantileOf(buckets: Buckets, q: number): number | null {
  const total = buckets.counts.at(-1) ?? 0;
  if (total === 0) return null;
  const rank = q * total;
  for (let index = 0; index < buckets.bounds.length; index++) {
    const count = buckets.counts[index]!;
    if (count < rank) continue;
    const upper = buckets.bounds[index]!;
    if (upper === Infinity) return buckets.bounds[index - 1] ?? null;
    const lower = index === 0 ? 0 : buckets.bounds[index - 1]!;
    const below = index === 0 ? 0 : buckets.counts[index - 1]!;
    return count === below ? upper : lower + ((upper - lower) * (rank - below)) / (count - below);
  }
  return buckets.bounds.at(-2) ?? null;
}

/** The share of observations at or below `bound` (one of the bucket bounds), or null with none. */
export function shareAtOrBelow(buckets: Buckets, bound: number): number | null {
  const total = buckets.counts.at(-1) ?? 0;
  const index = buckets.bounds.indexOf(bound);
  if (total === 0 || index === -1) return null;
  return buckets.counts[index]! / total;
}
