import type { FastifyInstance, FastifyReply } from 'fastify';
import { decisionText } from '../../../approvals/approval-text.js';
import { basicAuthUser } from '../action-guards.js';
import type { ConsoleContext, ConsoleSection } from '../console-section.js';
import { html, type Html } from '../html.js';
import { ApprovalsQuerySchema, ConsoleRequestError, type ApprovalsQueryParameters } from '../query-parameters.js';
import { APPROVALS_PATH, approvalsPage } from './approvals-page.js';
import { namedApprovals } from './pending-approvals.js';

const PAGE_SIZE = 50;

/** Tool calls waiting for approval in chat, and the operator's Deny. */
export const approvalsSection: ConsoleSection = {
  id: 'approvals',
  title: 'Approvals',
  description: 'Tool calls waiting for a person to allow them in the chat: who asked, the tool and its arguments, how long; deny one.',
  register(routes: FastifyInstance, context: ConsoleContext) {
    const { db } = context.deps;
    const approvals = () => {
      if (!context.deps.approvals) throw new ConsoleRequestError(404, 'approval requests are not available in this process');
      return context.deps.approvals;
    };
    const pending = async (limit: number) => {
      const { records, total } = await approvals().pending(limit);
      return { approvals: await namedApprovals(db, records), total };
    };
    const render = async (reply: FastifyReply, limit: number, outcome: Html | undefined, status = 200) =>
      context.page(reply, {
        section: 'approvals',
        title: 'Approval requests',
        status,
        body: approvalsPage(context, reply, { ...(await pending(limit)), now: context.now(), ...(outcome ? { outcome } : {}) }),
      });

    routes.get<{ Querystring: ApprovalsQueryParameters }>('/approvals', { schema: { querystring: ApprovalsQuerySchema } }, async (request, reply) => {
      const denied = request.query.denied;
      const outcome = denied ? html`<p class="notice" role="status">Denied request ${denied}: ${decisionText('denied', 'an operator')} The turn goes on without the call.</p>` : undefined;
      return render(reply, request.query.limit ?? PAGE_SIZE, outcome);
    });

    routes.post<{ Body: unknown }>('/approvals/deny', async (request, reply) => {
      const id = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>).id : undefined;
      if (typeof id !== 'string' || id.trim() === '') throw new ConsoleRequestError(400, 'id: the request to deny is missing');
      const result = await approvals().deny(id.trim(), basicAuthUser(request) || 'console');
      if (result.kind === 'denied') {
        context.deps.logger.info({ approvalId: result.record.id, sessionKey: result.record.sessionKey, tool: result.record.toolName }, 'approval request denied from the console');
        // post/redirect/get: reloading the page does not post again
        return reply.redirect(`${APPROVALS_PATH}?denied=${encodeURIComponent(result.record.id)}`, 303);
      }
      const message = result.kind === 'missing' ? `No approval request has the id ${id.trim()} (it may have expired).` : `This request was already answered (${result.status}).`;
      return render(reply, PAGE_SIZE, html`<p class="notice problem" role="alert">${message}</p>`, result.kind === 'missing' ? 404 : 409);
    });

    routes.get<{ Querystring: ApprovalsQueryParameters }>('/api/approvals', { schema: { querystring: ApprovalsQuerySchema } }, async (request) => {
      const { approvals: named, total } = await pending(request.query.limit ?? PAGE_SIZE);
      const now = context.now().getTime();
      return {
        approvals: named.map(({ record, conversation, requesterName, chatLabel }) => ({
          id: record.id,
          sessionKey: record.sessionKey,
          ...(conversation ? { channel: conversation.channel, accountId: conversation.accountId, chatId: conversation.chatId } : {}),
          ...(chatLabel ? { chat: chatLabel } : {}),
          requesterId: record.requesterId,
          ...(requesterName ? { requesterName } : {}),
          toolName: record.toolName,
          arguments: record.argumentsPreview,
          createdAt: new Date(record.createdAtMs).toISOString(),
          ageMs: Math.max(0, now - record.createdAtMs),
          deadline: new Date(record.deadlineMs).toISOString(),
        })),
        total,
      };
    });
  },
};
