/** The outcome of one offered rate. */
export interface StepVerdict {
  passed: boolean;
  /** Why it failed (or what limited it). */
  reason?: string;
}

export interface CapacitySearch<T extends StepVerdict> {
  /** The highest rate that passed; 0 when none did. */
  capacity: number;
  /** Every rate tried, in order, with its verdict and details. */
  steps: Array<{ rate: number } & T>;
  /**
   * Why the search stopped: `failure` (a rate failed: the capacity lies between the last pass and it), `last-rate`
   * (every rate passed: the capacity is at least the last one), `time` (the time budget ran out first).
   */
  stoppedBy: 'failure' | 'last-rate' | 'time';
}

/**
 * A bounded step search: tries `rates` in increasing order and stops at the first that fails, then tries once the
 * rate halfway between the last pass and that failure. No step starts after `deadline` (a performance.now() time).
 */
export async function searchCapacity<T extends StepVerdict>(options: { rates: readonly number[]; deadline: number; tryRate: (rate: number) => Promise<T>; now?: () => number }): Promise<CapacitySearch<T>> {
  const now = options.now ?? (() => performance.now());
  const steps: Array<{ rate: number } & T> = [];
  let lastPass = 0;
  let firstFail: number | undefined;
  let stoppedBy: CapacitySearch<T>['stoppedBy'] = 'last-rate';
  for (const rate of options.rates) {
    if (now() > options.deadline) {
      stoppedBy = 'time';
      break;
    }
    const verdict = await options.tryRate(rate);
    steps.push({ rate, ...verdict });
    if (!verdict.passed) {
      firstFail = rate;
      stoppedBy = 'failure';
      break;
    }
    lastPass = rate;
  }
  if (firstFail !== undefined && now() <= options.deadline) {
    const middle = Math.round((lastPass + firstFail) / 2);
    if (middle > lastPass && middle < firstFail) {
      const verdict = await options.tryRate(middle);
      steps.push({ rate: middle, ...verdict });
      if (verdict.passed) lastPass = middle;
    }
  }
  return { capacity: lastPass, steps, stoppedBy };
}
