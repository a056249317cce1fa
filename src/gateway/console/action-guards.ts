import { createHmac } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrfProtection from '@fastify/csrf-protection';
import fastifyFormBody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_PREFIX, type AdminCredentials } from '../admin-scope.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CSRF_COOKIE = 'console_csrf';

export interface ActionGuardOptions {
  readOnly: boolean;
  credentials: AdminCredentials;
  /** PUBLIC_URL: its host is accepted as an Origin besides the request's own Host. */
  publicUrl: string | undefined;
  /** Answers a refused request (HTML for a page's form, JSON for the API). */
  refuse: (request: FastifyRequest, reply: FastifyReply, status: number, message: string) => FastifyReply;
}

export interface CsrfTokens {
  /** The token for forms on this response (one per response: the cookie holding its secret is set once). */
  tokenFor(reply: FastifyReply): string;
}

/**
 * Every state-changing request to the console passes, in order: basic auth (the admin scope), read-only
 * mode (403), a same-origin check on `Sec-Fetch-Site` and `Origin` (403), then a CSRF token
 * (@fastify/csrf-protection: the secret in an HttpOnly SameSite=Strict cookie, the token in the form's
 * `_csrf` field or an `X-CSRF-Token` (or `X-XSRF-Token`) header, bound to the basic-auth user and to an HMAC key derived from
 * the admin credentials, so every gateway process accepts the others' tokens). Browsers send basic-auth
 * credentials with cross-site form posts too, which is why all of this is needed.
 */
export async function guardActions(routes: FastifyInstance, options: ActionGuardOptions): Promise<CsrfTokens> {
  await routes.register(fastifyCookie);
  await routes.register(fastifyFormBody);
  await routes.register(fastifyCsrfProtection, {
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: ADMIN_PREFIX, httpOnly: true, sameSite: 'strict', secure: 'auto' },
    getUserInfo: (request) => basicAuthUser(request),
    // X-XSRF-TOKEN: what the axios inside the queue dashboard (bull-board) sends from its XSRF-TOKEN cookie
    getToken: (request) => formField(request.body, '_csrf') ?? headerValue(request.headers['x-csrf-token']) ?? headerValue(request.headers['x-xsrf-token']),
    csrfOpts: { userInfo: true, hmacKey: csrfKey(options.credentials) },
  });
  const allowedHosts = new Set<string>();
  if (options.publicUrl) allowedHosts.add(new URL(options.publicUrl).host);

  routes.addHook('onRequest', async (request, reply) => {
    if (SAFE_METHODS.has(request.method)) return;
    if (options.readOnly) return options.refuse(request, reply, 403, 'the console is read-only (ADMIN_READONLY=true): no action is allowed');
    const crossSite = crossSiteReason(request, allowedHosts);
    if (crossSite) return options.refuse(request, reply, 403, `cross-site request refused (${crossSite})`);
  });
  // after the body is parsed (the token is a form field), before anything validates or handles it
  routes.addHook('preValidation', (request, reply, done) => {
    if (SAFE_METHODS.has(request.method)) return done();
    routes.csrfProtection(request, reply, done);
  });

  const tokens = new WeakMap<FastifyReply, string>();
  return {
    tokenFor: (reply) => {
      let token = tokens.get(reply);
      if (token === undefined) {
        token = reply.generateCsrf({ userInfo: basicAuthUser(reply.request) });
        tokens.set(reply, token);
      }
      return token;
    },
  };
}

/** Why the request comes from another site, or undefined when it does not (or the browser did not say). */
function crossSiteReason(request: FastifyRequest, allowedHosts: Set<string>): string | undefined {
  const site = headerValue(request.headers['sec-fetch-site']);
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site: ${site}`;
  const origin = headerValue(request.headers.origin);
  if (origin === undefined) return undefined;
  try {
    const { host, protocol } = new URL(origin);
    // the Host header read with the Origin's scheme, so that a default port written out (`:80`) still matches
    const requestHost = new URL(`${protocol}//${request.host}`).host;
    if (host !== '' && (host === requestHost || allowedHosts.has(host))) return undefined;
  } catch {
    // `Origin: null` (sandboxed frames, some redirects) and anything unreadable
  }
  return `Origin: ${origin}`;
}

/** The user name of the (already verified) basic-auth header. */
export function basicAuthUser(request: FastifyRequest): string {
  const match = /^basic +([A-Za-z0-9+/=]*) *$/i.exec(request.headers.authorization ?? '');
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  return colon === -1 ? '' : decoded.slice(0, colon);
}

function csrfKey(credentials: AdminCredentials): Buffer {
  return createHmac('sha256', 'operator-console-csrf').update(`${credentials.user}\u0000${credentials.password}`).digest();
}

function formField(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
