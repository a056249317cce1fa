import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, registerAdminScope } from '../../src/gateway/index.js';
import { createLogger } from '../../src/observability/logger.js';

const auth = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

describe('registerAdminScope', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await createHttpServer({ routes: [], health: {}, logger: createLogger({ level: 'silent' }) });
    // what a later console adds: a page at /admin and a JSON API under /admin/api, in the same scope
    await registerAdminScope(app, { user: 'ops', password: 'secret' }, (scope) => {
      scope.get('/', async () => 'console');
      scope.get('/api/sessions', async () => ({ sessions: [] }));
      scope.post('/api/pairings/:code/approve', async () => ({ approved: true }));
    });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('puts every route registered in the scope behind basic auth, however the path is spelled', async () => {
    for (const url of ['/admin', '/admin/', '/admin/api/sessions', '/%61dmin/api/sessions', '/admin/%61pi/sessions', '/admin/api/sessions?q=x']) {
      const response = await app.inject({ method: 'GET', url });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 401 });
      expect(response.headers['www-authenticate']).toMatch(/^Basic realm="admin"/);
      expect(response.body).not.toContain('sessions":');
    }
    expect((await app.inject({ method: 'POST', url: '/%61dmin/api/pairings/ABCDEFGH/approve' })).statusCode).toBe(401);
  });

  it('serves them to the right user with the right password only', async () => {
    expect((await app.inject({ method: 'GET', url: '/admin', headers: auth('ops', 'secret') })).body).toBe('console');
    expect((await app.inject({ method: 'GET', url: '/admin/api/sessions', headers: auth('ops', 'secret') })).json()).toEqual({ sessions: [] });
    expect((await app.inject({ method: 'POST', url: '/admin/api/pairings/ABCDEFGH/approve', headers: auth('ops', 'secret') })).statusCode).toBe(200);
    for (const [user, password] of [
      ['ops', 'Secret'],
      ['ops', 'secret '],
      ['ops', ''],
      ['Ops', 'secret'],
      ['', 'secret'],
      ['intruder', 'secret'],
    ] as const) {
      expect({ user, password, status: (await app.inject({ method: 'GET', url: '/admin/api/sessions', headers: auth(user, password) })).statusCode }).toEqual({ user, password, status: 401 });
    }
  });

  it('leaves routes outside the scope alone', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/administrator' })).statusCode).toBe(404);
  });
});
