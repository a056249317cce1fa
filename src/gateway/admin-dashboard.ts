import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { ADMIN_PREFIX } from './admin-scope.js';

const QUEUES_PATH = '/queues';

/** bull-board at /admin/queues; `scope` is the authenticated admin scope (`registerAdminScope`). */
export async function mountQueueDashboard(scope: FastifyInstance, queues: Queue[], readOnly: boolean): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(`${ADMIN_PREFIX}${QUEUES_PATH}`);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: readOnly })), serverAdapter });
  await scope.register(serverAdapter.registerPlugin(), { prefix: QUEUES_PATH });
}
