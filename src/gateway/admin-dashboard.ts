import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { BaseAdapter } from '@bull-board/api/dist/queueAdapters/base.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_PREFIX, type AdminCredentials } from './admin-scope.js';
import { guardActions } from './console/action-guards.js';

const QUEUES_PATH = '/queues';
/** The cookie axios (inside bull-board's page) reads and sends back as `X-XSRF-TOKEN` on its own requests. */
const XSRF_COOKIE = 'XSRF-TOKEN';

export interface QueueDashboardOptions {
  readOnly: boolean;
  credentials: AdminCredentials;
  /** PUBLIC_URL: its host is accepted as an Origin besides the request's own Host. */
  publicUrl: string | undefined;
  /** The session queue's entry (TurnsBoardAdapter), listed first. */
  turns?: BaseAdapter;
}

/**
 * What each BullMQ queue is shown as: the `inbound` queue keeps its name (its stored jobs and every worker know it by
 * it) but carries only /compact jobs; its pause pauses compactions only.
 */
const QUEUE_LABELS: Record<string, { displayName: string; description: string }> = {
  inbound: { displayName: 'compactions', description: '/compact requests (BullMQ queue `inbound`); pausing it pauses compactions only, not turns' },
  schedules: { displayName: 'scheduled firings', description: 'Scheduled tasks: each firing becomes a message of its session' },
};

/**
 * bull-board at /admin/queues; `scope` is the authenticated admin scope (`registerAdminScope`).
 *
 * Its write routes (pause, retry, clean, add…) pass the console's guards (`guardActions`): a same-origin check,
 * then a CSRF token bound to the admin user. bull-board's page cannot be given a form field, but the axios it
 * is built with sends the `XSRF-TOKEN` cookie back as the `X-XSRF-TOKEN` header on same-origin requests, so the
 * token travels in that cookie, set with the page. With ADMIN_READONLY bull-board itself refuses every write (405).
 *
 * Its page is served as bull-board renders it, less the web fonts it would load from the internet (the
 * system font is used instead, so the page renders offline), plus a link back to the console.
 */
export async function mountQueueDashboard(scope: FastifyInstance, queues: Queue[], options: QueueDashboardOptions): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(`${ADMIN_PREFIX}${QUEUES_PATH}`);
  createBullBoard({
    queues: [
      ...(options.turns ? [options.turns] : []),
      ...queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: options.readOnly, ...(QUEUE_LABELS[queue.name] ?? {}) })),
    ],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Queues', miscLinks: [{ text: 'Operator console', url: ADMIN_PREFIX }], hideDocsLink: true } },
  });
  await scope.register(async (dashboard) => {
    const tokens = options.readOnly
      ? undefined
      : await guardActions(dashboard, {
          readOnly: false,
          credentials: options.credentials,
          publicUrl: options.publicUrl,
          refuse: (_request, reply, status, message) => reply.code(status).send({ error: message }),
        });
    dashboard.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return payload;
      if (tokens) {
        reply.setCookie(XSRF_COOKIE, tokens.tokenFor(reply), { path: `${ADMIN_PREFIX}${QUEUES_PATH}`, sameSite: 'strict', httpOnly: false, secure: request.protocol === 'https' });
      }
      return offlinePage(payload);
    });
    await dashboard.register(serverAdapter.registerPlugin(), { prefix: QUEUES_PATH });
  });
}

const REMOTE_STYLESHEET = /<link\b[^>]*\bhref="https?:\/\/[^"]*"[^>]*>\s*/gi;
const CONSOLE_LINK =
  `<a href="${ADMIN_PREFIX}" style="position:fixed;right:1rem;bottom:1rem;z-index:1000;padding:.4rem .75rem;border-radius:.375rem;` +
  `background:#1f6feb;color:#fff;font:600 .85rem/1.2 system-ui,sans-serif;text-decoration:none;box-shadow:0 1px 3px rgba(0,0,0,.3)">← Operator console</a>`;

/** bull-board's page without anything loaded from another site, with a link back to the console. */
export function offlinePage(html: string): string {
  return html.replace(REMOTE_STYLESHEET, '').replace(/<body([^>]*)>/i, `<body$1>${CONSOLE_LINK}`);
}
