import { Worker } from 'bullmq';
import type { Logger } from '../observability/logger.js';
import type { RedisClient } from '../redis/redis-client.js';
import { COMPACT_JOB, INBOUND_QUEUE, type InboundJobData } from './inbound-queue.js';

/** Runs /compact jobs (beside any running turn of the session; the summarize lock keeps one at a time). */
export function startCompactionWorker(options: {
  connection: RedisClient;
  /** Shown as the job's `processedBy`. */
  workerName: string;
  bullmqPrefix: string;
  compact: (job: InboundJobData) => Promise<string>;
  /** Summaries this process runs at once (2 unless WORKER_CONCURRENCY allows fewer turns than that). */
  concurrency?: number;
  logger: Logger;
}): Worker<InboundJobData> {
  const worker = new Worker<InboundJobData>(
    INBOUND_QUEUE,
    async (job) => (job.name === COMPACT_JOB ? options.compact(job.data) : 'ignored'),
    { connection: options.connection, prefix: options.bullmqPrefix, concurrency: options.concurrency ?? 2, name: options.workerName },
  );
  worker.on('failed', (job, error) => options.logger.warn({ jobId: job?.id, err: error }, 'compaction job failed'));
  worker.on('error', (error) => options.logger.error({ err: error }, 'compaction worker error'));
  return worker;
}
