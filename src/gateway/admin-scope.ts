import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminLoginGuard } from './admin-login-guard.js';

export const ADMIN_PREFIX = '/admin';

export interface AdminCredentials {
  user: string;
  password: string;
}

/**
 * Registers admin routes inside one encapsulated Fastify plugin on the `/admin` prefix whose
 * `onRequest` hook demands HTTP basic auth. The hook belongs to the routes registered in `register`,
 * so it runs for whatever request the router matched to them, however the request line spelled the
 * path (`/%61dmin/…`, absolute-form `GET http://host/admin/…`, …): authentication never looks at the
 * raw URL. Routes registered in `register` are relative to `/admin` (`scope.get('/api/x')` serves
 * `/admin/api/x`). With a `loginGuard`, wrong passwords from one client address (`request.ip`: TRUST_PROXY decides
 * whose X-Forwarded-For names it) are slowed down and then locked out (429 with Retry-After), per user name given and,
 * past a higher bound, for the whole address; a request without credentials is not counted (browsers send one first).
 */
export async function registerAdminScope(
  app: FastifyInstance,
  credentials: AdminCredentials,
  register: (scope: FastifyInstance) => Promise<void> | void,
  options: { loginGuard?: AdminLoginGuard } = {},
): Promise<void> {
  const expected = { user: digest(credentials.user), password: digest(credentials.password) };
  const guard = options.loginGuard;
  const locked = (reply: FastifyReply, retryAfterSeconds: number) =>
    reply
      .code(429)
      .header('Retry-After', String(retryAfterSeconds))
      .send({ error: `too many wrong passwords from this address: try again in ${retryAfterSeconds} s` });
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        const given = credentialsOf(request.headers.authorization);
        // counted per client address and user name given (no credentials, or unreadable ones: the empty name)
        const user = given?.user ?? '';
        const verdict = guard ? await guard.check(request.ip, user) : undefined;
        if (verdict?.kind === 'locked') return locked(reply, verdict.retryAfterSeconds);
        if (given && authorized(given, expected)) {
          if (verdict) await guard!.succeeded(request.ip, user, verdict);
          return;
        }
        if (guard && request.headers.authorization !== undefined) {
          const failure = await guard.failed(request.ip, user);
          if (failure.kind === 'locked') return locked(reply, failure.retryAfterSeconds);
        }
        await reply.code(401).header('WWW-Authenticate', 'Basic realm="admin", charset="UTF-8"').send({ error: 'authentication required' });
      });
      await register(scope);
    },
    { prefix: ADMIN_PREFIX },
  );
}

/** The user and password of a basic Authorization header; undefined when there is none or it is malformed. */
function credentialsOf(header: string | undefined): AdminCredentials | undefined {
  const match = /^basic +([A-Za-z0-9+/=]*) *$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function authorized(given: AdminCredentials, expected: { user: Buffer; password: Buffer }): boolean {
  // both compared every time, over fixed-length digests: neither the length nor which part was wrong shows in the timing
  const userOk = timingSafeEqual(digest(given.user), expected.user);
  const passwordOk = timingSafeEqual(digest(given.password), expected.password);
  return userOk && passwordOk;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
