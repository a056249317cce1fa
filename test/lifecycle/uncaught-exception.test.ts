import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
beforeAll(async () => {
  environment = await createE2eEnvironment();
});
afterAll(async () => {
  await environment?.close();
});

/**
 * Issue 53 (a soak's gateway went away after a restart and left nothing in the JSON log): an exception thrown
 * outside any request (a library's timer, an event handler) ends the process with a fatal log line that carries
 * the stack. A module preloaded with `--import` throws from a timer once the service is up and the test says so
 * (a file appears).
 */
describe('an uncaught exception', () => {
  it('is logged as one fatal JSON line with its stack before the process exits', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'uncaught-'));
    const [preload, trigger] = [join(directory, 'throw-later.mjs'), join(directory, 'throw-now')];
    writeFileSync(
      preload,
      `import { existsSync } from 'node:fs';
const poll = setInterval(() => {
  if (!existsSync(${JSON.stringify(trigger)})) return;
  clearInterval(poll);
  throw new TypeError('slots[slot] is undefined');
}, 20);
poll.unref();
`,
    );
    const service = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '', NODE_OPTIONS: `--import=${preload}` }));

    writeFileSync(trigger, '');
    const code = await service.exited;

    expect(code).not.toBe(0);
    const fatal = service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; origin?: string; err?: { type: string; message: string; stack: string } })
      .find((line) => line.level === 60);
    expect(fatal).toMatchObject({ msg: 'uncaught exception: the service exits', origin: 'uncaughtException', err: { type: 'TypeError', message: 'slots[slot] is undefined' } });
    expect(fatal!.err!.stack).toContain('throw-later.mjs');
  });
});
