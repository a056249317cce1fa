import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoResponder, reply, type Responder } from '../doubles/model-script.js';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { SessionQueue } from '../../src/redis/session-queue.js';
import { TurnsPause } from '../../src/redis/turns-pause.js';
import { inboundMessage } from '../support/messages.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { chromiumPath, requireSystemPackages } from '../support/system-packages.js';

/**
 * The session queue in the real bull-board page (headless Chromium): one slow turn running, three messages waiting
 * behind another session's running turn, one turn retrying, two failed turns (dead letters); Retry on a failed turn
 * answers its user once, in order; Discard drops the other; in read-only mode no action is offered.
 */
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const ADMIN = { username: 'operator', password: 'queue keeper' };
const [SLOW, BUSY, RETRYING, RETRIED, DISCARDED] = [8301, 8302, 8303, 8304, 8305];

/** bull-board's job actions are icon buttons: Retry (lucide refresh) and Clean (lucide trash). */
const RETRY_ICON = 'lucide-refresh-cw';
const CLEAN_ICON = 'lucide-trash-2';
const ACTION_BUTTONS = `button:has(svg.${RETRY_ICON}), button:has(svg.${CLEAN_ICON})`;

let environment: E2eEnvironment;
let service: ServiceProcess;
let readOnly: ServiceProcess;
let browser: Browser;

const textsTo = (chatId: number) =>
  environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));
const modelCallsFor = (marker: string) => environment.openai.requests.filter((request) => JSON.stringify(request.body.messages).includes(marker)).length;

/** SLOW-… answers after a minute, RETRY-… fails every time, anything else is echoed. */
const responder: Responder = (request, text) => (text.includes('SLOW') ? { ...reply.text(`You said: ${text}`), latencyMs: 60_000 } : text.includes('RETRY') ? reply.serverError(500) : echoResponder(request, text));

/**
 * Two turns abandoned after every retry, made as a worker would make them (while turns are paused, so that no
 * worker of the service takes them first): their messages wait as dead letters.
 */
async function deadLetters(): Promise<void> {
  const queue = new SessionQueue(environment.redis, environment.keys, { groupMaxConcurrent: 3, leaseMs: 30_000, debounceMs: 0, albumWaitMs: 0, modeOf: () => 'collect' });
  const pause = new TurnsPause(environment.redis, environment.keys);
  await pause.pause('test');
  // the workers read the flag once a second
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  for (const chatId of [RETRIED, DISCARDED]) {
    const base = inboundMessage({ text: `please answer LOST-${chatId}` });
    const message = { ...base, sender: { id: String(chatId), name: `User ${chatId}` }, conversation: { ...base.conversation, accountId: String(environment.telegram.botId), chatId: String(chatId) } };
    const sessionKey = sessionKeyOf(message);
    await queue.enqueue(sessionKey, message);
    await environment.redis.hset(queue.keys.shard(queue.keys.shardOf(sessionKey)).alive, 'test-worker', String(Date.now() + 60_000));
    const claim = await queue.acquire(sessionKey, 'test-worker');
    if (claim.kind !== 'acquired') throw new Error(`the dead letter's turn was not acquired: ${claim.kind}`);
    await queue.recordFailure(sessionKey, claim.turnId, claim.holder, { round: 0, attempt: 1, reason: 'OpenAI 500: server error' });
    await queue.deadLetter(sessionKey, claim.turnId, claim.holder, 'OpenAI 500: server error');
    await queue.release(sessionKey, claim.turnId, claim.holder);
  }
  await pause.resume();
}

beforeAll(async () => {
  requireSystemPackages('chromium');
  environment = await createE2eEnvironment();
  environment.openai.script.respondWith(responder);
  const env = { ADMIN_USER: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, LLM_STREAM: 'false', LLM_MAX_RETRIES: '0', LLM_TIMEOUT_MS: '120000', SHUTDOWN_GRACE_MS: '1000' };
  service = await startServiceProcess(environment.env(env));
  readOnly = await startServiceProcess(environment.env({ ...env, ROLE: 'gateway', ADMIN_READONLY: 'true', TELEGRAM_BOT_TOKEN: '' }));
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_FLAGS });

  await deadLetters();
  const post = (chatId: number, text: string) => postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, text));
  await post(SLOW, 'SLOW-ONE please');
  await post(BUSY, 'SLOW-TWO please');
  await waitFor(() => modelCallsFor('SLOW-TWO') === 1, { what: 'the busy session’s turn running' });
  for (const text of ['first WAIT-1', 'second WAIT-2', 'third WAIT-3']) await post(BUSY, text);
  await post(RETRYING, 'RETRY-ME please');
  await waitFor(() => modelCallsFor('RETRY-ME') >= 2, { what: 'the retrying turn’s first failure' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await readOnly?.stop();
  await service?.stop();
  await environment?.close();
});

async function openTab(page: Page, baseUrl: string, status: string): Promise<string> {
  expect((await page.goto(`${baseUrl}/admin/queues/queue/turns?status=${status}`))?.status()).toBe(200);
  await page.waitForLoadState('networkidle');
  // the page renders its tabs, then the jobs it fetched: until then it says Loading...
  await page.locator('ul[class*="statusTabs"]').waitFor();
  await page.waitForFunction(`!(document.querySelector('main')?.textContent ?? '').includes('Loading...')`);
  return (await page.locator('main').textContent()) ?? '';
}

describe('the turns entry of the queue view in Chromium', () => {
  it('offers no action in read-only mode', async () => {
    const context = await browser.newContext({ httpCredentials: ADMIN, viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const failed = await openTab(page, readOnly.url, 'failed');
    await page.screenshot({ path: join(ARTIFACTS, 'turns-read-only.png'), fullPage: true });
    expect(failed).toContain('Failed after every retry');
    expect(await page.getByRole('button', { name: /retry|clean|remove|discard|pause/i }).count()).toBe(0);
    expect(await page.locator(ACTION_BUTTONS).count()).toBe(0);
    await context.close();
  }, 30_000);

  it('shows each kind of work in its tab; Retry answers once, in order; Discard drops', async () => {
    const context = await browser.newContext({ httpCredentials: ADMIN, viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const scriptErrors: string[] = [];
    page.on('pageerror', (error) => scriptErrors.push(error.message));

    const active = await openTab(page, service.url, 'active');
    await page.screenshot({ path: join(ARTIFACTS, 'turns-active.png'), fullPage: true });
    expect(active).toContain(`telegram ${SLOW}`);
    expect(active).toContain(`telegram ${BUSY}`);
    expect(active).toMatch(/Running/);

    const waiting = await openTab(page, service.url, 'waiting');
    await page.screenshot({ path: join(ARTIFACTS, 'turns-waiting.png'), fullPage: true });
    for (const position of [1, 2, 3]) expect(waiting).toContain(`Message ${position} of 3: User ${BUSY}`);
    // message text is not shown unless ADMIN_SHOW_MESSAGE_TEXT=true
    expect(waiting).not.toContain('WAIT-1');

    await waitFor(async () => (await openTab(page, service.url, 'delayed')).includes('Retrying (attempt'), { what: 'the retrying turn in the delayed tab', timeoutMs: 20_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'turns-delayed.png'), fullPage: true });

    const failed = await openTab(page, service.url, 'failed');
    await page.screenshot({ path: join(ARTIFACTS, 'turns-failed.png'), fullPage: true });
    expect(failed).toContain(`Failed after every retry: User ${RETRIED}`);
    expect(failed).toContain(`Failed after every retry: User ${DISCARDED}`);
    expect(failed).toContain('OpenAI 500: server error');

    // Retry on one failed turn, Discard on the other, through the page's own buttons
    expect(await page.locator(ACTION_BUTTONS).count()).toBeGreaterThan(0);
    // a job's card: the nearest element around its name that holds its action buttons (icons without names)
    const card = (chatId: number) => page.getByText(`Failed after every retry: User ${chatId}`).locator(`xpath=ancestor::*[.//button//*[contains(@class,"${RETRY_ICON}")]][1]`);
    await card(RETRIED).locator(`button:has(svg.${RETRY_ICON})`).click();
    await page.getByRole('button', { name: /confirm/i }).click({ timeout: 2_000 }).catch(() => undefined);
    await waitFor(() => textsTo(RETRIED).includes(`You said: please answer LOST-${RETRIED}`), { what: 'the retried turn answered', timeoutMs: 20_000 });
    await openTab(page, service.url, 'failed');
    await card(DISCARDED).locator(`button:has(svg.${CLEAN_ICON})`).click();
    await page.getByRole('button', { name: /confirm/i }).click({ timeout: 2_000 }).catch(() => undefined);
    await waitFor(async () => !(await openTab(page, service.url, 'failed')).includes(`User ${DISCARDED}`), { what: 'the discarded turn gone', timeoutMs: 10_000 });
    expect(textsTo(RETRIED)).toEqual([`You said: please answer LOST-${RETRIED}`]);
    expect(textsTo(DISCARDED)).toEqual([]);
    expect(scriptErrors).toEqual([]);
    await context.close();
  }, 90_000);

});
