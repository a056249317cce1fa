import type { FastifyInstance } from 'fastify';
import { usageByDay } from '../../../usage/index.js';
import type { ConsoleContext, ConsoleSection } from '../console-section.js';
import { UsageQuerySchema, type UsageQueryParameters } from '../query-parameters.js';
import { usagePage } from './usage-page.js';
import { usageRange } from './usage-range.js';

/** Tokens and cost per UTC day, agent and channel: a chart and tables, and the same rows as JSON. */
export const usageSection: ConsoleSection = {
  id: 'usage',
  title: 'Cost',
  description: 'Tokens and cost per day, agent and channel, with a chart.',
  register(routes: FastifyInstance, context: ConsoleContext) {
    const usage = async (query: UsageQueryParameters) => {
      const range = usageRange(query, context.now());
      return { range, rows: await usageByDay(context.deps.db, { from: range.start, until: range.until }) };
    };

    routes.get<{ Querystring: UsageQueryParameters }>('/usage', { schema: { querystring: UsageQuerySchema } }, async (request, reply) => {
      const { range, rows } = await usage(request.query);
      return context.page(reply, { section: 'usage', title: 'Cost and tokens', body: usagePage(range, rows) });
    });

    routes.get<{ Querystring: UsageQueryParameters }>('/api/usage', { schema: { querystring: UsageQuerySchema } }, async (request) => {
      const { range, rows } = await usage(request.query);
      return { days: rows, from: range.from, to: range.to };
    });
  },
};
