import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';

/** The queue dashboard (bull-board) in headless Chromium, offline: every request to another site is refused and recorded. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const ADMIN = { username: 'operator', password: 'queue keeper' };

let environment: E2eEnvironment;
let service: ServiceProcess;
let browser: Browser;
let queue: Queue;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does it)`);
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '', ADMIN_USER: ADMIN.username, ADMIN_PASSWORD: ADMIN.password }));
  queue = new Queue('inbound', { connection: environment.redis, prefix: environment.keys.bullmqPrefix });
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await queue?.close();
  await service?.stop();
  await environment?.close();
});

describe('the queue dashboard in Chromium, offline', () => {
  it('renders with nothing from another site, pauses a queue from its own menu, and links back to the console', async () => {
    const context = await browser.newContext({ httpCredentials: ADMIN, viewport: { width: 1280, height: 800 } });
    const elsewhere: string[] = [];
    await context.route('**/*', (route) => {
      if (route.request().url().startsWith(service.url)) return route.continue();
      elsewhere.push(route.request().url());
      return route.abort('internetdisconnected');
    });
    const page = await context.newPage();
    const scriptErrors: string[] = [];
    page.on('pageerror', (error) => scriptErrors.push(error.message));

    expect((await page.goto(`${service.url}/admin/queues/queue/inbound`))?.status()).toBe(200);
    await page.getByRole('link', { name: 'inbound' }).first().waitFor();
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: join(ARTIFACTS, 'queue-dashboard.png') });
    expect(elsewhere).toEqual([]);
    expect(scriptErrors).toEqual([]);

    // bull-board's own Pause, through its menu: its request carries the CSRF token from the page's cookie
    await page.locator('button').last().click();
    await page.getByRole('menuitem', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => queue.isPaused(), { timeout: 5_000 }).toBe(true);
    await queue.resume();

    await page.getByRole('link', { name: '← Operator console' }).click();
    await page.waitForURL(`${service.url}/admin`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Operator console');
    expect(elsewhere).toEqual([]);
    await context.close();
  }, 60_000);
});
