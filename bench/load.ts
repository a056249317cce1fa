import type { Outgoing } from './traffic.js';
import type { MessageTracker } from './tracker.js';
import type { WebhookClient } from './webhook-client.js';

export interface LoadResult {
  seqs: number[];
  /** How many POSTs did not answer 200. */
  failedPosts: number;
  /** Stopped sending at the time limit before the count was reached. */
  cutShortByTime: boolean;
  sendSeconds: number;
  /** Open loop: how late each POST left against its schedule (ms). */
  sendLagMs: number[];
}

/** Resolves on the next signal() or after `ms`, whichever is first. */
class Wakeup {
  private waiter: (() => void) | undefined;
  signal(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.signal(), ms);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

function send(client: WebhookClient, tracker: MessageTracker, outgoing: Outgoing, done: (ok: boolean) => void): void {
  const message = tracker.register(outgoing.seq, outgoing.session);
  void client.post(outgoing.update).then(({ status, ms }) => {
    message.ackMs = ms;
    message.ackStatus = status;
    done(status === 200);
  });
}

/**
 * Closed loop: keeps at most `maxOutstanding` messages unanswered and `maxPosts` POSTs in flight, refilling as
 * answers arrive, until `count` messages are sent or `timeLimitMs` passes. The source gets its sessions back
 * through its own subscription to the tracker (answers keep arriving after the loop returns).
 */
export async function closedLoop(options: {
  client: WebhookClient;
  tracker: MessageTracker;
  source: { take(): Outgoing | undefined };
  count: number;
  maxOutstanding: number;
  maxPosts: number;
  timeLimitMs: number;
}): Promise<LoadResult> {
  const { client, tracker, source } = options;
  const wakeup = new Wakeup();
  const seqs: number[] = [];
  let posts = 0;
  let failedPosts = 0;
  const stopListening = tracker.onAnswered(() => wakeup.signal());
  const startedAt = performance.now();
  const deadline = startedAt + options.timeLimitMs;
  try {
    while (seqs.length < options.count && performance.now() < deadline) {
      if (tracker.outstanding >= options.maxOutstanding || posts >= options.maxPosts) {
        await wakeup.wait(50);
        continue;
      }
      const outgoing = source.take();
      if (!outgoing) {
        await wakeup.wait(50);
        continue;
      }
      seqs.push(outgoing.seq);
      posts += 1;
      send(client, tracker, outgoing, (ok) => {
        posts -= 1;
        if (!ok) failedPosts += 1;
        wakeup.signal();
      });
    }
    const sendSeconds = (performance.now() - startedAt) / 1000;
    while (posts > 0) await wakeup.wait(50);
    return { seqs, failedPosts, cutShortByTime: seqs.length < options.count, sendSeconds, sendLagMs: [] };
  } finally {
    stopListening();
  }
}

/** Open loop: `rate` messages per second on a fixed schedule for `durationMs`, whatever the answers do. */
export async function openLoop(options: {
  client: WebhookClient;
  tracker: MessageTracker;
  source: { next(): Outgoing };
  rate: number;
  durationMs: number;
}): Promise<LoadResult> {
  const { client, tracker, source, rate } = options;
  const count = Math.round((rate * options.durationMs) / 1000);
  const interval = 1000 / rate;
  const seqs: number[] = [];
  const sendLagMs: number[] = [];
  let posts = 0;
  let failedPosts = 0;
  const startedAt = performance.now();
  for (let index = 0; index < count; index++) {
    const due = startedAt + index * interval;
    const early = due - performance.now();
    if (early > 0.5) await new Promise((resolve) => setTimeout(resolve, early));
    sendLagMs.push(Math.max(0, performance.now() - due));
    const outgoing = source.next();
    seqs.push(outgoing.seq);
    posts += 1;
    send(client, tracker, outgoing, (ok) => {
      posts -= 1;
      if (!ok) failedPosts += 1;
    });
  }
  const sendSeconds = (performance.now() - startedAt) / 1000;
  const waitUntil = performance.now() + 15_000;
  while (posts > 0 && performance.now() < waitUntil) await new Promise((resolve) => setTimeout(resolve, 20));
  return { seqs, failedPosts: failedPosts + posts, cutShortByTime: false, sendSeconds, sendLagMs };
}
