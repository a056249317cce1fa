import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
 * code, a scheduled task, a turn parked on an approval request. Screenshots go to test-artifacts/
 * (git-ignored).
 */
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const ADMIN = { username: 'operator', password: 'correct horse: battery' };
const FRIEND = 8101;
const STRANGER = 8202;
const HOSTILE = 'Thanks! <script>alert("console")</script><img src=x onerror=alert(2)>';
/** The Telegram double's name for a user (first and last name, username). */
const FRIEND_NAME = `User ${FRIEND} (@user${FRIEND})`;
/** write_file waits for a person's approval. */
const CONFIG = `
agents:
  - id: main
    toolPolicy:
      requireApproval: [write_file]
`;

let environment: E2eEnvironment;
let service: ServiceProcess;
let browser: Browser;
let configDirectory: string;

const post = (update: unknown) => postTelegramUpdate(service.url, update);
const textsTo = (chatId: number) =>
  environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));

beforeAll(async () => {
  requireSystemPackages('chromium');
  environment = await createE2eEnvironment();
  configDirectory = mkdtempSync(join(tmpdir(), 'console-e2e-'));
  writeFileSync(join(configDirectory, 'bot.config.yaml'), CONFIG);
  service = await startServiceProcess(
    environment.env({
      CONFIG_FILE: join(configDirectory, 'bot.config.yaml'),
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
  // a task the model schedules, and a turn that waits for an approval of write_file
  environment.openai.script.push(reply.toolCall('schedule_task', { prompt: 'Remind me to water the plants', every_seconds: 3600 }), reply.text('Scheduled.'));
  await post(environment.telegram.makeUpdate.privateText(FRIEND, 'Remind me every hour to water the plants'));
  await waitFor(() => textsTo(FRIEND).length === 3, { what: 'the scheduling answer' });
  await waitFor(async () => (await environment.sql`SELECT count(*)::int AS n FROM runs`)[0]!.n === 3, { what: 'three runs stored' });
  environment.openai.script.push(reply.toolCall('write_file', { path: 'notes.txt', content: 'buy milk\n', append: true }));
  await post(environment.telegram.makeUpdate.privateText(FRIEND, 'please note: buy milk'));
  await waitFor(() => textsTo(FRIEND).some((text) => text.includes('write_file')), { what: 'the approval request in the chat' });
  await post(environment.telegram.makeUpdate.privateText(STRANGER, 'hello, may I come in?'));
  await waitFor(() => textsTo(STRANGER).length === 1, { what: 'the pairing code' });

  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_FLAGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await environment?.close();
  if (configDirectory) rmSync(configDirectory, { recursive: true, force: true });
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
    // the home page: today's and the last hour's turns, what runs and waits, the channel's last update
    const today = page.getByRole('region', { name: /^Today/ });
    expect(await today.locator('.figure').textContent()).toMatch(/ settled over 3 turns$/);
    const lastHour = page.getByRole('region', { name: 'Last hour' });
    expect(await lastHour.locator('.figure').textContent()).toBe('3 turns');
    expect(await lastHour.textContent()).toContain('3 completed, 0 failed');
    const work = page.getByRole('region', { name: 'Running and waiting' });
    // the turn parked on its approval holds its session's slot (running: active, though no worker holds it), waits
    // for nothing else, and has not failed
    const turnsRow = work.getByRole('row', { name: /^Turns / });
    expect(await turnsRow.getByRole('cell').allTextContents()).toEqual(['1', '0', '0', '0', '0']);
    expect(await work.textContent()).toContain('1 turn parked on an approval request.');
    const telegramRow = page.getByRole('region', { name: 'Channels' }).getByRole('row', { name: new RegExp(`^telegram ${environment.telegram.botId}`) });
    expect(await telegramRow.textContent()).toMatch(/webhookevery gateway \(webhook\)\d{4}-\d{2}-\d{2} [\d:]+ UTC/);
    await shoot(page, 'home');

    // keyboard first: the first Tab reaches the skip link
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');

    const navigation = page.getByRole('navigation', { name: 'Console sections' });
    await navigation.getByRole('link', { name: 'Sessions' }).click();
    expect(await heading(page)).toBe('Sessions');
    const sessionLink = page.getByRole('link', { name: FRIEND_NAME, exact: true });
    expect(await sessionLink.count()).toBe(1);
    // the user column: the name, then the id
    expect(await page.locator('main tbody td', { hasText: FRIEND_NAME }).textContent()).toBe(`${FRIEND_NAME}${FRIEND}`);
    await shoot(page, 'sessions');
    // found by the user's @username
    await page.getByLabel(/^Chat, user/).fill(`@user${FRIEND}`);
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.getByRole('status').textContent()).toBe(`1 session matching “@user${FRIEND}”.`);

    await sessionLink.click();
    expect(await heading(page)).toBe(`${FRIEND_NAME} · telegram`);
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

    // schedules: the friend's task under the friend's name, cancelled with its button
    await navigation.getByRole('link', { name: 'Schedules' }).click();
    expect(await heading(page)).toBe('Scheduled tasks');
    const chat = page.getByRole('region', { name: FRIEND_NAME });
    const task = chat.getByRole('row', { name: /Remind me to water the plants/ });
    expect(await task.textContent()).toContain('every 3600 s');
    expect(await task.textContent()).toContain(FRIEND_NAME);
    const [taskRow] = await environment.sql`SELECT id FROM scheduled_tasks WHERE status = 'active'`;
    const taskId = String(taskRow!.id);
    await shoot(page, 'schedules');
    await task.getByRole('button', { name: `Cancel task ${taskId} of ${FRIEND_NAME}` }).click();
    await page.waitForURL(/\/admin\/schedules\?cancelled=/);
    expect(await page.getByRole('status').textContent()).toBe(`Cancelled task ${taskId} (“Remind me to water the plants”): it will not fire again.`);
    expect(await page.getByText('No scheduled tasks.').count()).toBe(1);
    expect((await environment.sql`SELECT status FROM scheduled_tasks WHERE id = ${taskId}`)[0]!.status).toBe('cancelled');
    await shoot(page, 'schedule-cancelled');

    // approvals: the parked write_file call, denied here; the turn goes on with the denial
    await navigation.getByRole('link', { name: 'Approvals' }).click();
    expect(await heading(page)).toBe('Approval requests');
    const request = page.getByRole('row', { name: /write_file/ });
    expect(await request.textContent()).toContain('buy milk');
    expect(await request.getByRole('cell', { name: new RegExp(`^${FRIEND_NAME.replace(/[()]/g, '\\$&')}`) }).count()).toBeGreaterThan(0);
    await shoot(page, 'approvals');
    environment.openai.script.push(reply.text('I did not write the note: it was denied.'));
    await request.getByRole('button', { name: `Deny write_file for ${FRIEND_NAME}` }).click();
    await page.waitForURL(/\/admin\/approvals\?denied=/);
    expect(await page.getByRole('status').first().textContent()).toMatch(/^Denied request .+: Denied by an operator\. The turn goes on without the call\.$/);
    expect(await page.getByText('No approval requests are waiting.').count()).toBe(1);
    // the answer goes into the message that said "Waiting for your approval" (one message, not a line and an answer)
    await waitFor(() => environment.telegram.visibleMessages(FRIEND).some((message) => message.text === 'I did not write the note: it was denied.'), { what: 'the answer after the denial' });
    expect(environment.telegram.callsOf('editMessageText').some((call) => String(call.params.text).includes('Denied by an operator.'))).toBe(true);
    // the turn is stored right after its answer is delivered
    const toolResults = await waitFor(
      async () => {
        const rows = await environment.sql`SELECT parts::text AS parts FROM messages WHERE role = 'tool' AND parts::text LIKE '%operator denied%'`;
        return rows.length > 0 ? rows : undefined;
      },
      { what: 'the stored denial' },
    );
    expect(toolResults).toHaveLength(1);
    await shoot(page, 'approval-denied');

    // budgets: today's spend with names, paged, searched, linked to the sessions; a limit set with the form
    await navigation.getByRole('link', { name: 'Budgets' }).click();
    expect(await heading(page)).toBe('Budgets');
    const spend = page.getByRole('table', { name: /^Spent today/ });
    expect(await spend.getByRole('row', { name: new RegExp(`telegram:\\d+:${FRIEND}`) }).count()).toBe(1);
    expect(await spend.getByRole('row', { name: new RegExp(`^User ${FRIEND_NAME.replace(/[()]/g, '\\$&')}`) }).count()).toBe(1);
    await page.goto(`${service.url}/admin/budgets?limit=2`);
    expect(await page.getByRole('status').textContent()).toBe('5 budgets with spend today, page 1 of 3.');
    expect(await page.getByRole('table', { name: /^Spent today/ }).locator('tbody tr').count()).toBe(2);
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.waitForURL(/page=2/);
    expect(await page.getByRole('status').textContent()).toBe('5 budgets with spend today, page 2 of 3.');
    await shoot(page, 'budgets-page-2');
    await page.getByLabel(/^User, chat or agent/).fill(`@user${FRIEND}`);
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.getByRole('status').textContent()).toBe('2 matching budgets with spend today.');
    await page.getByRole('row', { name: new RegExp(`^User ${FRIEND_NAME.replace(/[()]/g, '\\$&')}`) }).getByRole('link', { name: `Sessions of ${FRIEND_NAME}` }).click();
    expect(await heading(page)).toBe('Sessions');
    expect(await page.getByText(`Showing the direct messages of telegram user ${FRIEND}.`).count()).toBe(1);
    expect(await page.getByRole('link', { name: FRIEND_NAME, exact: true }).count()).toBe(1);
    await navigation.getByRole('link', { name: 'Budgets' }).click();
    await page.getByLabel('Per chat (USD a day)').fill('1.5');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.waitForURL(/\/admin\/budgets\?saved=1$/);
    expect(await page.getByRole('status').first().textContent()).toBe('Saved: the new limits apply to the next model call in every process.');
    expect(await page.getByLabel('Per chat (USD a day)').inputValue()).toBe('1.5');
    expect(await page.getByRole('row', { name: /^Per chat/ }).first().textContent()).toContain('$1.50');
    await shoot(page, 'budgets');
    expect(scriptErrors).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('fits a phone screen', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(`${service.url}/admin/sessions?q=${FRIEND}`);
    await page.getByRole('link', { name: FRIEND_NAME, exact: true }).click();
    expect(await heading(page)).toBe(`${FRIEND_NAME} · telegram`);
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    expect(overflow).toBeLessThanOrEqual(0);
    await shoot(page, 'transcript-phone');
    // the home page and today's spend fit too (their wide tables scroll inside, hidden button labels included)
    for (const path of ['/admin', '/admin/budgets']) {
      await page.goto(`${service.url}${path}`);
      expect({ path, overflow: Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) }).toEqual({ path, overflow: 0 });
    }
    await shoot(page, 'budgets-phone');
    await page.context().close();
  }, 60_000);
});
