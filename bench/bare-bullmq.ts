import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { progress } from './progress.js';
import { deleteKeysWithPrefix } from './redis-stats.js';

export interface BareBullmqResult {
  jobs: number;
  completed: number;
  seconds: number;
  jobsPerSec: number;
}

/**
 * The reference: Queue.add of `jobs` no-op jobs (at most `maxPendingAdds` adds in flight) while a Worker with
 * the service's concurrency processes them, on its own prefix; jobs/s from the first add to the last completion.
 * Job options mirror the service's inbound queue (attempts, removeOnComplete).
 */
export async function runBareBullmq(options: {
  redisUrl: string;
  prefix: string;
  jobs: number;
  concurrency: number;
  timeoutMs: number;
  maxPendingAdds?: number;
}): Promise<BareBullmqResult> {
  const { jobs, concurrency, prefix } = options;
  const producer = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const workerConnection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue('bare', {
    connection: producer,
    prefix,
    defaultJobOptions: { attempts: 4, backoff: { type: 'exponential', delay: 2_000 }, removeOnComplete: { age: 3_600, count: 5_000 } },
  });
  let completed = 0;
  let lastCompletedAt = 0;
  let allDone: () => void = () => {};
  const done = new Promise<void>((resolve) => (allDone = resolve));
  const worker = new Worker(
    'bare',
    async () => {
      completed += 1;
      lastCompletedAt = performance.now();
      if (completed >= jobs) allDone();
      return 'ok';
    },
    { connection: workerConnection, prefix, concurrency, autorun: false },
  );
  try {
    await queue.waitUntilReady();
    await worker.waitUntilReady();
    void worker.run();
    const startedAt = performance.now();
    const maxPending = options.maxPendingAdds ?? 256;
    let next = 0;
    const adder = async () => {
      while (next < jobs) {
        const index = next++;
        await queue.add('noop', { index });
      }
    };
    const adding = Promise.all(Array.from({ length: Math.min(maxPending, jobs) }, adder));
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), options.timeoutMs).unref());
    await adding;
    const outcome = await Promise.race([done.then(() => 'done' as const), timeout]);
    if (outcome === 'timeout') progress(`bare BullMQ: only ${completed}/${jobs} jobs within ${options.timeoutMs} ms`);
    const seconds = ((outcome === 'done' ? lastCompletedAt : performance.now()) - startedAt) / 1000;
    return { jobs, completed, seconds, jobsPerSec: completed / seconds };
  } finally {
    await worker.close();
    await queue.close();
    await deleteKeysWithPrefix(producer, prefix);
    producer.disconnect();
    workerConnection.disconnect();
  }
}
