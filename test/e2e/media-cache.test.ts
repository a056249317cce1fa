import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { PNG_BYTES } from '../support/media-fixtures.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * A turn that runs again (a failed model call retried, a crashed worker's turn taken over) reads the files its
 * first attempt downloaded from DATA_DIR/media-cache: the platform serves each file once. A worker on another
 * machine (another DATA_DIR) downloads again.
 */
let environment: E2eEnvironment;
const services: ServiceProcess[] = [];
const otherDataDirs: string[] = [];

beforeEach(async () => {
  environment = await createE2eEnvironment();
});

afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.stop()));
  await environment.close();
  for (const directory of otherDataDirs.splice(0)) rmSync(directory, { recursive: true, force: true });
});

async function start(overrides: Record<string, string> = {}) {
  const service = await startServiceProcess(environment.env({ LLM_MAX_RETRIES: '0', TURN_LEASE_MS: '2000', LLM_STREAM: 'false', ...overrides }));
  services.push(service);
  return service;
}

const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
/** Both halves of a Telegram download: getFile, then the file route (the double serves `documents/<file_id>.jpg`). */
const downloadsOf = (fileId: string) => ({
  getFile: environment.telegram.callsOf('getFile').filter((call) => call.params.file_id === fileId).length,
  file: environment.telegram.downloads.filter((path) => path === `documents/${fileId}.jpg`).length,
});
const sendPhoto = (service: ServiceProcess, chatId: number, caption: string) => {
  const fileId = environment.telegram.addFile(PNG_BYTES, 'jpg');
  const photo = [{ file_id: fileId, file_unique_id: `u${fileId}`, width: 1, height: 1, file_size: PNG_BYTES.length }];
  return postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, '', { text: undefined, caption, photo })).then(() => fileId);
};
const imageCalls = (caption: string) => environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages).includes(caption) && JSON.stringify(call.body).includes('image_url'));

async function answeredOnce(chatId: number) {
  await waitFor(() => sentTo(chatId).length > 0, { timeoutMs: 30_000, what: `the answer to ${chatId}` });
  await new Promise((resolve) => setTimeout(resolve, 2_500)); // a second answer would arrive within a lease
  expect(sentTo(chatId)).toHaveLength(1);
}

describe('downloads kept for a turn that runs again', () => {
  it('a model call that fails once: the retried turn sends the same image, and the platform served the file once', async () => {
    const service = await start();
    let failed = false;
    environment.openai.script.respondWith(() => {
      if (failed) return 'A red square.';
      failed = true;
      return reply.serverError(500);
    });
    const fileId = await sendPhoto(service, 6101, 'what is this?');
    await answeredOnce(6101);
    expect(sentTo(6101)[0]!.params.text).toBe('A red square.');
    const calls = imageCalls('what is this?');
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls[1]!.body)).toContain(PNG_BYTES.toString('base64'));
    expect(downloadsOf(fileId)).toEqual({ getFile: 1, file: 1 });
    expect(readdirSync(join(environment.dataDir, 'media-cache')).filter((name) => /^[0-9a-f]{64}$/.test(name))).toHaveLength(1);
  });

  it('a worker killed mid-turn: another worker process on the same machine takes the turn over without downloading again', async () => {
    const first = await start();
    environment.openai.settings.latencyMs = 60_000;
    const fileId = await sendPhoto(first, 6102, 'taken over');
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 15_000);
    await start({ ROLE: 'worker' });
    await first.kill('SIGKILL');
    environment.openai.settings.latencyMs = 0;
    await answeredOnce(6102);
    expect(imageCalls('taken over').length).toBeGreaterThanOrEqual(2);
    expect(downloadsOf(fileId)).toEqual({ getFile: 1, file: 1 });
  });

  it('a worker on another machine (another DATA_DIR) downloads the file again', async () => {
    const first = await start();
    environment.openai.settings.latencyMs = 60_000;
    const fileId = await sendPhoto(first, 6103, 'elsewhere');
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 15_000);
    const otherDataDir = mkdtempSync(join(tmpdir(), 'bot-e2e-other-'));
    otherDataDirs.push(otherDataDir);
    await start({ ROLE: 'worker', DATA_DIR: otherDataDir });
    await first.kill('SIGKILL');
    environment.openai.settings.latencyMs = 0;
    await answeredOnce(6103);
    expect(downloadsOf(fileId)).toEqual({ getFile: 2, file: 2 });
  });
});
