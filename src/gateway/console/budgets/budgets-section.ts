import type { FastifyInstance } from 'fastify';
import { LIMIT_FIELDS, type BudgetLimits } from '../../../budgets/index.js';
import type { ConsoleContext, ConsoleSection } from '../console-section.js';
import { html } from '../html.js';
import { ConsoleRequestError } from '../query-parameters.js';
import { BUDGETS_PATH, budgetsPage } from './budgets-page.js';

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
    const render = async (saved: boolean) => {
      const budgets = overview();
      const [limits, { day, spend }] = await Promise.all([budgets.limits(), budgets.spendToday()]);
      return { limits, day, spend, ...(saved ? { outcome: html`<p class="notice" role="status">Saved: the new limits apply to the next model call in every process.</p>` } : {}) };
    };

    routes.get<{ Querystring: { saved?: string } }>('/budgets', async (request, reply) =>
      context.page(reply, { section: 'budgets', title: 'Budgets', body: budgetsPage(context, reply, await render(request.query.saved === '1')) }),
    );

    routes.post<{ Body: unknown }>('/budgets', async (request, reply) => {
      await overview().update(limitChangesOf(request.body));
      // post/redirect/get: reloading the page does not post again
      return reply.redirect(`${BUDGETS_PATH}?saved=1`, 303);
    });

    routes.get('/api/budgets', async () => {
      const { limits, day, spend } = await render(false);
      return { day, limits, spend };
    });
  },
};
