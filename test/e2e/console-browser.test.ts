import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { chromiumPath, requireSystemPackages } from '../support/system-packages.js';

/**
 * The operator console in a real browser (headless Chromium through playwright-core) against the BUILT
 * service: real turns and spans from the Telegram and model doubles, a stranger waiting with a pairing
 * code. Screenshots go to test-artifacts/ (git-ignored).
 */
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const ADMIN = { username: 'operator', password: 'correct horse: battery' };
const FRIEND = 8101;
const STRANGER = 8202;
const HOSTILE = 'Thanks! <script>alert("console")</script><img src=x onerror=alert(2)>';

let environment: E2eEnvironment;
let service: ServiceProcess;
let browser: Browser;

const post = (update: unknown) => postTelegramUpdate(service.url, update);
const textsTo = (chatId: number) =>
  environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));

beforeAll(async () => {
  requireSystemPackages('chromium');
  environment = await createE2eEnvironment();
  service = await startServiceProcess(
    environment.env({
      ADMIN_USER: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      DM_POLICY: 'pairing',
      ALLOW_FROM: `telegram:${FRIEND}`,
      LLM_STREAM: 'false',
    }),
  );
  // some history: a turn with a tool call, a turn with hostile text, and a stranger with a pairing code
  environment.openai.script.push(reply.toolCall('list_directory', {}), reply.text('Your workspace is empty.'));
  await post(environment.telegram.makeUpdate.privateText(FRIEND, 'What is in my workspace?'));
  await waitFor(() => textsTo(FRIEND).length === 1, { what: 'the answer after the tool call' });
  await post(environment.telegram.makeUpdate.privateText(FRIEND, HOSTILE));
  await waitFor(() => textsTo(FRIEND).length === 2, { what: 'the second answer' });
  await waitFor(async () => (await environment.sql`SELECT count(*)::int AS n FROM runs`)[0]!.n === 2, { what: 'both runs stored' });
  await post(environment.telegram.makeUpdate.privateText(STRANGER, 'hello, may I come in?'));
  await waitFor(() => textsTo(STRANGER).length === 1, { what: 'the pairing code' });

  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_FLAGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await environment?.close();
});

async function newPage(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ httpCredentials: ADMIN, viewport });
  const page = await context.newPage();
  // no script may ever run on a console page
  page.on('dialog', (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
  return page;
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();
const shoot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `console-${name}.png`), fullPage: true });

describe('the operator console in Chromium', () => {
  it('goes from the sessions to a transcript and a run’s spans, and approves a pairing', async () => {
    const page = await newPage();
    const scriptErrors: string[] = [];
    page.on('pageerror', (error) => scriptErrors.push(error.message));
    const response = await page.goto(`${service.url}/admin`);
    expect(response?.status()).toBe(200);
    expect(await heading(page)).toBe('Operator console');

    // keyboard first: the first Tab reaches the skip link
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');

    const navigation = page.getByRole('navigation', { name: 'Console sections' });
    await navigation.getByRole('link', { name: 'Sessions' }).click();
    expect(await heading(page)).toBe('Sessions');
    const sessionLink = page.getByRole('link', { name: `Direct messages ${FRIEND}` });
    expect(await sessionLink.count()).toBe(1);
    await shoot(page, 'sessions');

    await sessionLink.click();
    expect(await heading(page)).toBe(`Direct messages ${FRIEND} · telegram`);
    expect(await page.getByText('What is in my workspace?').count()).toBe(1);
    // the hostile message is there as text, and nothing of it became markup
    expect(await page.getByText(HOSTILE, { exact: true }).count()).toBe(1);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.getByText('Your workspace is empty.').count()).toBe(1);

    const spans = page.locator('details.spans').first();
    expect(await spans.getAttribute('open')).toBeNull();
    const summary = spans.locator('summary');
    expect(await summary.textContent()).toBe('Spans of this run: 2 LLM calls, 1 tool call');
    await summary.focus();
    await page.keyboard.press('Enter');
    expect(await spans.getAttribute('open')).toBe('');
    const table = spans.getByRole('table');
    await table.waitFor({ state: 'visible' });
    const rows = await table.locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(3);
    expect(rows[1]).toContain('Tool call');
    expect(rows[1]).toContain('list_directory');
    expect(rows[0]).toContain('LLM call');
    expect(await spans.locator('svg.timeline rect').count()).toBe(3);
    await shoot(page, 'transcript');

    await navigation.getByRole('link', { name: 'Cost' }).click();
    expect(await heading(page)).toBe('Cost and tokens');
    await page.locator('svg.chart').waitFor({ state: 'visible' });
    expect(await page.getByRole('img', { name: 'Cost per day, by channel' }).count()).toBe(1);
    await shoot(page, 'usage');

    await navigation.getByRole('link', { name: 'Pairings' }).click();
    expect(await heading(page)).toBe('Pairing requests');
    const code = /pairing code is ([A-Z0-9]{8})/.exec(textsTo(STRANGER)[0]!)?.[1];
    expect(code).toBeDefined();
    expect(await page.getByRole('row', { name: new RegExp(code!) }).count()).toBe(1);
    await shoot(page, 'pairings');
    await page.getByRole('button', { name: `Approve telegram:${STRANGER} (User ${STRANGER})` }).click();
    await page.waitForURL(/\/admin\/pairings\?approved=/);
    expect(await page.getByRole('status').textContent()).toBe(`Approved telegram:${STRANGER} (User ${STRANGER}): the bot answers this user from now on.`);
    expect(await page.getByText('No pairing requests are waiting.').count()).toBe(1);
    await shoot(page, 'pairing-approved');

    await post(environment.telegram.makeUpdate.privateText(STRANGER, 'am I in now?'));
    await waitFor(() => textsTo(STRANGER).length === 2, { what: 'the answer to the approved stranger' });
    expect(textsTo(STRANGER)[1]).toBe('You said: am I in now?');

    // budgets: today's spend of the friend's chat, and a limit set with the form
    await navigation.getByRole('link', { name: 'Budgets' }).click();
    expect(await heading(page)).toBe('Budgets');
    expect(await page.getByRole('table', { name: /^Per chat: spent today/ }).getByRole('row', { name: new RegExp(`telegram:\\d+:${FRIEND}`) }).count()).toBe(1);
    await page.getByLabel('Per chat (USD a day)').fill('1.5');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.waitForURL(/\/admin\/budgets\?saved=1$/);
    expect(await page.getByRole('status').textContent()).toBe('Saved: the new limits apply to the next model call in every process.');
    expect(await page.getByLabel('Per chat (USD a day)').inputValue()).toBe('1.5');
    expect(await page.getByRole('row', { name: /^Per chat/ }).first().textContent()).toContain('$1.50');
    await shoot(page, 'budgets');
    expect(scriptErrors).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('fits a phone screen', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(`${service.url}/admin/sessions?q=${FRIEND}`);
    await page.getByRole('link', { name: `Direct messages ${FRIEND}` }).click();
    expect(await heading(page)).toBe(`Direct messages ${FRIEND} · telegram`);
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    expect(overflow).toBeLessThanOrEqual(0);
    await shoot(page, 'transcript-phone');
    await page.context().close();
  }, 60_000);
});
