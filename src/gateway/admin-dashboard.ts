import { timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

const BASE_PATH = '/admin/queues';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** bull-board at /admin/queues behind HTTP basic auth; not mounted at all without a password. */
export async function mountAdminDashboard(
  app: FastifyInstance,
  queues: Queue[],
  credentials: { user: string; password: string },
  readOnly: boolean,
): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/admin')) return;
    const header = request.headers.authorization ?? '';
    const [scheme, encoded] = header.split(' ');
    const [user, ...rest] = Buffer.from(encoded ?? '', 'base64').toString('utf8').split(':');
    const ok = scheme === 'Basic' && sameSecret(user ?? '', credentials.user) && sameSecret(rest.join(':'), credentials.password);
    if (!ok) {
      await reply.code(401).header('WWW-Authenticate', 'Basic realm="queues"').send({ error: 'authentication required' });
    }
  });
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BASE_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: readOnly })), serverAdapter });
  await app.register(serverAdapter.registerPlugin(), { prefix: BASE_PATH });
}
