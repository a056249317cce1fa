import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_PREFIX, type AdminCredentials } from '../admin-scope.js';
import { guardActions } from './action-guards.js';
import type { ConsoleContext, ConsoleDependencies, ConsoleSection } from './console-section.js';
import { EMPTY_HTML, html } from './html.js';
import { sendPage } from './layout.js';
import { overviewData } from './overview/overview-data.js';
import { overviewJson } from './overview/overview-json.js';
import { overviewPage } from './overview/overview-page.js';
import { consoleSections } from './sections.js';

export interface ConsoleOptions extends ConsoleDependencies {
  credentials: AdminCredentials;
  publicUrl: string | undefined;
}

const SECTION_ID = /^[a-z][a-z-]*$/;
const TITLES: Record<number, string> = { 400: 'Bad request', 403: 'Not allowed', 404: 'Not found', 409: 'Conflict' };

/**
 * The operator console at /admin: an overview page and every section of the registry, registered in the
 * authenticated admin scope (`registerAdminScope`), in a plugin of their own so that its cookie, form
 * parser, guards and error handler stay inside the console.
 */
export async function mountConsole(scope: FastifyInstance, options: ConsoleOptions, sections: readonly ConsoleSection[] = consoleSections): Promise<void> {
  checkSections(sections);
  await scope.register(async (routes) => {
    const refuse = (request: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
      wantsJson(request) ? reply.code(status).send({ error: message }) : context.page(reply, { section: undefined, title: TITLES[status] ?? 'Error', status, body: problem(message) });
    const tokens = await guardActions(routes, { readOnly: options.readOnly, credentials: options.credentials, publicUrl: options.publicUrl, refuse });
    const clock = options.clock ?? Date.now;
    const context: ConsoleContext = {
      deps: options,
      readOnly: options.readOnly,
      now: () => new Date(clock()),
      page: (reply, page) => sendPage(reply, sections, options.readOnly, page),
      csrfField: (reply) => (options.readOnly ? EMPTY_HTML : html`<input type="hidden" name="_csrf" value="${tokens.tokenFor(reply)}">`),
      actionForm: (reply, form) => {
        if (options.readOnly) return EMPTY_HTML;
        const fields = Object.entries(form.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
        return html`<form class="action" method="post" action="${form.action}"><input type="hidden" name="_csrf" value="${tokens.tokenFor(reply)}">!${fields}<button type="submit">${form.label}!${
          form.detail ? html`<span class="visually-hidden"> ${form.detail}</span>` : EMPTY_HTML
        }</button></form>`;
      },
    };

    routes.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
      const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) options.logger.error({ err: error, route: request.routeOptions.url }, 'console request failed');
      const message =
        status === 500
          ? 'internal error (details are in the log)'
          : error.code?.startsWith('FST_CSRF_')
            ? 'this form was not issued by the console (CSRF token missing or wrong): reload the page and try again'
            : error.message;
      return refuse(request, reply, status, message);
    });

    routes.get('/', async (_request, reply) =>
      context.page(reply, { section: undefined, title: 'Operator console', body: overviewPage(await overviewData(options, context.now(), options.logger), sections) }),
    );
    routes.get('/api/overview', async () => overviewJson(await overviewData(options, context.now(), options.logger)));
    for (const section of sections) await section.register(routes, context);
  });
}

export function problem(message: string): ReturnType<typeof html> {
  return html`<p class="notice problem" role="alert">${message}</p>`;
}

function wantsJson(request: FastifyRequest): boolean {
  return (request.routeOptions.url ?? request.url).startsWith(`${ADMIN_PREFIX}/api/`);
}

function checkSections(sections: readonly ConsoleSection[]): void {
  const seen = new Set<string>();
  for (const section of sections) {
    if (!SECTION_ID.test(section.id) || section.id === 'api' || section.id === 'queues') throw new Error(`console section id ${JSON.stringify(section.id)} is not allowed`);
    if (seen.has(section.id)) throw new Error(`console section ${section.id} is registered twice`);
    seen.add(section.id);
  }
}
