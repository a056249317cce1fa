import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { childrenOf } from '../support/processes.js';
import { CLI, freePort, startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { spawn } from 'node:child_process';

/** One process per data folder: a service on an embedded store (here the redis-server from PATH) holds DATA_DIR. */
let environment: E2eEnvironment;
const services: ServiceProcess[] = [];

beforeEach(async () => {
  environment = await createE2eEnvironment();
});

afterEach(async () => {
  for (const service of services.splice(0)) if (service.child.exitCode === null && service.child.signalCode === null) await service.stop();
  await environment.close();
});

const embedded = () => environment.env({ REDIS_URL: '' });

/** A second `start` as a plain process: it is expected to end by itself. */
function startExpectingRefusal(env: Record<string, string>): Promise<{ code: number | null; output: string; children: string[] }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'start'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env } });
    let output = '';
    const children = new Set<string>();
    const watch = setInterval(() => childrenOf(child.pid!).forEach((process) => children.add(process.command)), 20);
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearInterval(watch);
      resolve({ code, output, children: [...children] });
    });
  });
}

describe('one process per data folder', () => {
  it('refuses a second start in the same DATA_DIR in one line naming the process that holds it', async () => {
    const first = await startServiceProcess(embedded());
    services.push(first);
    const second = await startExpectingRefusal({ ...embedded(), PORT: String(await freePort()) });

    expect(second.code).toBe(1);
    expect(second.output.trim().split('\n')).toHaveLength(1);
    expect(second.output.trim()).toMatch(
      new RegExp(`^DATA_DIR ${environment.dataDir} is in use by process ${first.child.pid} \\(chatbot start, since \\S+, ${first.url}\\): one process per data folder; stop that one first, or give this one another DATA_DIR$`),
    );
    // it gave up before starting anything of its own
    expect(second.children).not.toContain('redis-server');

    // the first one was not disturbed
    await postTelegramUpdate(first.url, environment.telegram.makeUpdate.privateText(6201, 'only one of us'));
    await waitFor(() => environment.telegram.callsOf('sendMessage').some((call) => call.params.chat_id === 6201), { what: 'the answer' });
  });

  it('is free again once the holder has stopped, or was killed', async () => {
    const first = await startServiceProcess(embedded());
    expect(await first.stop()).toBe(0);
    const second = await startServiceProcess(embedded());
    await second.kill('SIGKILL');
    // the lock file names a process that is gone: the next start takes it over
    const third = await startServiceProcess(embedded());
    services.push(third);
    await postTelegramUpdate(third.url, environment.telegram.makeUpdate.privateText(6202, 'after a crash'));
    await waitFor(() => environment.telegram.callsOf('sendMessage').some((call) => call.params.chat_id === 6202), { what: 'the answer' });
  }, 60_000);

  it('is not taken when neither store is embedded: several processes may share a DATA_DIR then', async () => {
    const gateway = await startServiceProcess(environment.env({ ROLE: 'gateway' }));
    services.push(gateway);
    const worker = await startServiceProcess(environment.env({ ROLE: 'worker' }));
    services.push(worker);
    await postTelegramUpdate(gateway.url, environment.telegram.makeUpdate.privateText(6203, 'shared folder'));
    await waitFor(() => environment.telegram.callsOf('sendMessage').some((call) => call.params.chat_id === 6203), { what: 'the answer' });
  });
});
