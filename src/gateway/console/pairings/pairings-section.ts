import type { FastifyInstance } from 'fastify';
import { normalizePairingCode } from '../../../access/index.js';
import { findPairingRequest } from '../../../store/index.js';
import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { ConsoleContext, ConsoleSection } from '../console-section.js';
import { html } from '../html.js';
import { ConsoleRequestError, PairingsQuerySchema, type PairingsQueryParameters } from '../query-parameters.js';
import { APPROVE_PATH, pairingsPage, userOf } from './pairings-page.js';

/** DM_POLICY=pairing: the pending codes, and approving one (the same service as `cli pairing approve`). */
export const pairingsSection: ConsoleSection = {
  id: 'pairings',
  title: 'Pairings',
  description: 'Strangers waiting with a pairing code; approve them here (DM_POLICY=pairing).',
  register(routes: FastifyInstance, context: ConsoleContext) {
    const { pairing, db, dmPolicy } = context.deps;

    routes.get<{ Querystring: PairingsQueryParameters }>('/pairings', { schema: { querystring: PairingsQuerySchema } }, async (request, reply) => {
      const approvedCode = normalizePairingCode(request.query.approved ?? '');
      const approved = approvedCode ? await findPairingRequest(db, approvedCode) : undefined;
      const outcome = approved?.approvedAt
        ? html`<p class="notice" role="status">Approved ${userOf(approved)}: the bot answers this user from now on.</p>`
        : undefined;
      return context.page(reply, {
        section: 'pairings',
        title: 'Pairing requests',
        body: pairingsPage(context, reply, { pending: await pairing.pending(), dmPolicy, now: context.now(), outcome }),
      });
    });

    routes.post<{ Body: unknown }>(`/pairings/approve`, async (request, reply) => {
      const code = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>).code : undefined;
      if (typeof code !== 'string' || code.trim() === '') throw new ConsoleRequestError(400, 'code: the pairing code to approve is missing');
      const result = await pairing.approve(code);
      if (result.kind === 'approved') {
        // post/redirect/get: reloading the page does not post again
        return reply.redirect(`${ADMIN_PREFIX}/pairings?approved=${encodeURIComponent(result.request.code)}`, 303);
      }
      const message = {
        unknown: `No pairing request has the code ${code.trim()}.`,
        expired: `The code ${code.trim()} has expired: the user gets a new one by writing to the bot again.`,
        'already-approved': `The code ${code.trim()} was already approved${result.request ? ` (${userOf(result.request)})` : ''}.`,
      }[result.kind];
      return context.page(reply, {
        section: 'pairings',
        title: 'Pairing requests',
        status: result.kind === 'unknown' ? 404 : 409,
        body: pairingsPage(context, reply, {
          pending: await pairing.pending(),
          dmPolicy,
          now: context.now(),
          outcome: html`<p class="notice problem" role="alert">${message}</p>`,
        }),
      });
    });

    routes.get('/api/pairings', async () => ({
      pairings: (await pairing.pending()).map((request) => ({
        code: request.code,
        channel: request.channel,
        accountId: request.accountId,
        userId: request.userId,
        ...(request.userName ? { userName: request.userName } : {}),
        createdAt: request.createdAt.toISOString(),
        expiresAt: request.expiresAt.toISOString(),
      })),
    }));
  },
};
