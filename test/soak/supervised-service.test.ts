import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SupervisedService } from '../../soak/service.js';

/**
 * A stand-in for the service: answers /healthz on PORT and, unless the file CRASH_MARK names is there, writes it and
 * throws from a timer 300 ms in (an uncaught exception: a stack trace on stderr, not a JSON log line); once the mark
 * is there it listens only after SLOW_START_AFTER_CRASH_MS (a restart that takes a while). While the count in
 * FAIL_STARTS_FILE is above 0 it exits before it listens (and counts down), as the service does when Redis is away
 * at its start.
 */
const STAND_IN = `
const http = require('node:http');
const fs = require('node:fs');
const failures = process.env.FAIL_STARTS_FILE && fs.existsSync(process.env.FAIL_STARTS_FILE) ? Number(fs.readFileSync(process.env.FAIL_STARTS_FILE, 'utf8')) : 0;
if (failures > 0) {
  fs.writeFileSync(process.env.FAIL_STARTS_FILE, String(failures - 1));
  console.error('Redis did not become ready');
  process.exit(1);
}
const crashed = process.env.CRASH_MARK && fs.existsSync(process.env.CRASH_MARK);
const server = http.createServer((request, response) => response.end('ok'));
setTimeout(() => server.listen(Number(process.env.PORT), '127.0.0.1'), crashed ? Number(process.env.SLOW_START_AFTER_CRASH_MS ?? 0) : 0);
if (process.env.CRASH_MARK && !crashed) {
  setTimeout(() => {
    fs.writeFileSync(process.env.CRASH_MARK, '');
    throw new TypeError('slots[slot] is undefined');
  }, 300);
}
`;

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Issue 53: a process of the soak that dies without being killed is a crash the verdict names, and is restarted. */
describe('soak supervisor: unexpected exits', () => {
  const script = join(mkdtempSync(join(tmpdir(), 'soak-stand-in-')), 'stand-in.cjs');
  writeFileSync(script, STAND_IN);
  let service: SupervisedService | undefined;
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  it('records a crash after the process became healthy, with its stack trace, and starts it again', async () => {
    service = await SupervisedService.start('gateway', { CRASH_MARK: join(script, '..', 'crashed') }, [script]);

    const healthy = () => fetch(`${service!.url}/healthz`).then((response) => response.ok, () => false);
    await until(async () => service!.unexpectedExits.length === 1 && (await healthy()));

    const [exit] = service.unexpectedExits;
    expect(exit!.code).toBe(1);
    expect(exit!.lastLines.join('\n')).toContain('TypeError: slots[slot] is undefined');
    expect(service.restarts).toBe(1);
  });

  it('leaves nothing running when stopped while a crashed process is being started again', async () => {
    service = await SupervisedService.start('gateway', { CRASH_MARK: join(script, '..', 'crashed-then-stopped'), SLOW_START_AFTER_CRASH_MS: '3000' }, [script]);
    await until(() => service!.unexpectedExits.length === 1);
    // the supervisor restarts it a second after the crash; its new life takes 3 s to answer
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    await service.stop();
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    expect(service.running).toBe(false);
  });

  it('does not count the kills and restarts the soak makes, nor its stop', async () => {
    service = await SupervisedService.start('worker-1', {}, [script]);

    await service.kill('SIGKILL');
    await service.restart();
    await service.kill('SIGTERM');
    await service.restart();
    await service.stop();

    expect(service.unexpectedExits).toEqual([]);
    expect(service.restarts).toBe(2);
  });

  it('does not count a start that fails before the process is healthy: the restart tries again', async () => {
    const failStarts = join(script, '..', 'fail-starts');
    writeFileSync(failStarts, '0');
    service = await SupervisedService.start('worker-2', { FAIL_STARTS_FILE: failStarts }, [script]);
    writeFileSync(failStarts, '2');

    await service.restart();

    expect(service.running).toBe(true);
    expect(service.unexpectedExits).toEqual([]);
  });
});
