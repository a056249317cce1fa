import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardingProxy, type ForwardingProxy } from '../gateway/support/forwarding-proxy.js';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';

/**
 * Issue 48 through the built service: TRUST_PROXY reaches the HTTP server, so the admin login's wrong passwords are
 * counted at the address the trusted proxy reports, not at the proxy's own.
 */
let environment: E2eEnvironment;
let service: ServiceProcess;
let proxy: ForwardingProxy;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '', ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw', TRUST_PROXY: '127.0.0.1' }));
  proxy = await startForwardingProxy(service.port);
});

afterAll(async () => {
  await proxy?.close();
  await service?.stop();
  await environment?.close();
});

function login(from: string, password: string, forwardedFor?: string): Promise<number> {
  const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`ops:${password}`).toString('base64')}` };
  if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port: proxy.port, localAddress: from, path: '/admin/api/overview', headers, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    sent.on('error', reject);
    sent.end();
  });
}

const failuresAt = async (address: string) => environment.redis.get(environment.keys.adminLogin(address, 'any').failures);

describe('TRUST_PROXY=127.0.0.1 with a forwarding proxy in front of the service', () => {
  it('counts wrong passwords at each client\u2019s address, never at the proxy\u2019s or a forged one', async () => {
    expect(await login('127.0.0.2', 'wrong')).toBe(401);
    expect(await login('127.0.0.2', 'wrong again', '198.51.100.9')).toBe(401);
    expect(await failuresAt('127.0.0.2')).toBe('2');
    expect(await failuresAt('127.0.0.1')).toBeNull();
    expect(await failuresAt('198.51.100.9')).toBeNull();
    expect(await login('127.0.0.3', 'pw')).toBe(200);
  });
});
