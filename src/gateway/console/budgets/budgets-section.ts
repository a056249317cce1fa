import type { FastifyInstance } from 'fastify';
import { LIMIT_FIELDS, type BudgetLimits } from '../../../budgets/index.js';
import type { ConsoleContext, ConsoleSection } from '../console-section.js';
import { html } from '../html.js';
import { BudgetsQuerySchema, ConsoleRequestError, type BudgetsQueryParameters } from '../query-parameters.js';
import { spendPage } from './budget-spend-page.js';
import { BUDGETS_PAGE_SIZE, BUDGETS_PATH, budgetsPage } from './budgets-page.js';

type LimitChanges = { [Field in keyof BudgetLimits]?: number | null };

/** The form's three fields: a number of dollars (≥ 0) sets a limit, an empty field clears it. */
export function limitChangesOf(body: unknown): LimitChanges {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const changes: LimitChanges = {};
  for (const name of Object.values(LIMIT_FIELDS)) {
    const raw = fields[name];
    if (raw === undefined) continue;
    if (typeof raw !== 'string') throw new ConsoleRequestError(400, `${name}: one value expected`);
    const text = raw.trim();
    if (text === '') {
      changes[name] = null;
      continue;
    }
    const value = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(value)) throw new ConsoleRequestError(400, `${name}: a number of US dollars, 0 or more, or empty for no limit (got ${JSON.stringify(text.slice(0, 40))})`);
    changes[name] = value;
  }
  if (Object.keys(changes).length === 0) throw new ConsoleRequestError(400, `one of ${Object.values(LIMIT_FIELDS).join(', ')} is required`);
  return changes;
}

/** Daily budgets: the limits that apply, today's spend per user, chat and agent, and editing the default limits. */
export const budgetsSection: ConsoleSection = {
  id: 'budgets',
  title: 'Budgets',
  description: 'Daily USD limits per user, chat and agent, and what each has spent today.',
  register(routes: FastifyInstance, context: ConsoleContext) {
    const overview = () => {
      const { budgets } = context.deps;
      if (!budgets) throw new ConsoleRequestError(404, 'budgets are not available in this process');
      return budgets;
    };
    const render = async (parameters: BudgetsQueryParameters) => {
      const budgets = overview();
      const query = { search: parameters.q?.trim() ?? '', scope: parameters.scope || undefined, page: parameters.page ?? 1, limit: parameters.limit ?? BUDGETS_PAGE_SIZE };
      const [limits, { day, spend }] = await Promise.all([budgets.limits(), budgets.spendToday()]);
      return {
        limits,
        day,
        query,
        spend: await spendPage(context.deps.db, spend, query),
        ...(parameters.saved === '1' ? { outcome: html`<p class="notice" role="status">Saved: the new limits apply to the next model call in every process.</p>` } : {}),
      };
    };

    routes.get<{ Querystring: BudgetsQueryParameters }>('/budgets', { schema: { querystring: BudgetsQuerySchema } }, async (request, reply) =>
      context.page(reply, { section: 'budgets', title: 'Budgets', body: budgetsPage(context, reply, await render(request.query)) }),
    );

    routes.post<{ Body: unknown }>('/budgets', async (request, reply) => {
      await overview().update(limitChangesOf(request.body));
      // post/redirect/get: reloading the page does not post again
      return reply.redirect(`${BUDGETS_PATH}?saved=1`, 303);
    });

    routes.get<{ Querystring: BudgetsQueryParameters }>('/api/budgets', { schema: { querystring: BudgetsQuerySchema } }, async (request) => {
      const { limits, day, spend } = await render({ ...request.query, saved: undefined });
      return { day, limits, spend: spend.rows, total: spend.total, page: spend.page, pageCount: spend.pageCount };
    });
  },
};
