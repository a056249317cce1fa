import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { auth } from './console-fixture.js';

export interface OpenedForm {
  body: string;
  /** The page's CSRF token, absent when the page has no form (read-only). */
  token: string | undefined;
  cookie: string | undefined;
}

/** What a browser holds after opening a console page: its body, the forms' token and the CSRF cookie. */
export async function openPage(app: FastifyInstance, url: string): Promise<OpenedForm> {
  const page = await app.inject({ method: 'GET', url, headers: auth });
  expect({ url, status: page.statusCode }).toEqual({ url, status: 200 });
  return {
    body: page.body,
    token: /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1],
    cookie: page.cookies.find((entry) => entry.name === 'console_csrf')?.value,
  };
}

/** Posts a console form as the browser would (the token and cookie of `form`, same origin unless `headers` say otherwise). */
export function postForm(app: FastifyInstance, url: string, fields: Record<string, string>, form: Partial<OpenedForm>, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url,
    headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    ...(form.cookie !== undefined ? { cookies: { console_csrf: form.cookie } } : {}),
    payload: new URLSearchParams({ ...fields, ...(form.token !== undefined ? { _csrf: form.token } : {}) }).toString(),
  });
}

/** The console's own markup escaped a second time (an `Html` value interpolated as text). */
export const DOUBLE_ESCAPED_MARKUP = /&#60;\/?(time|code|span|a|div|p|tr|td|th|svg|rect|title|form|input|button|details|summary|ul|li|strong|br|table|section|h2|h3|select|option)(&#62;|\s)/;
