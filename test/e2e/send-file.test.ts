import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../doubles/http-double.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { pdfBytes, PNG_BYTES } from '../support/media-fixtures.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let service: ServiceProcess;
const serviceEnv = () => environment.env({ LLM_MAX_RETRIES: '0', TURN_LEASE_MS: '3000' });

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(serviceEnv());
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const putInWorkspace = (userId: number, path: string, bytes: Buffer) => {
  const file = join(environment.dataDir, 'workspaces', String(userId), path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, bytes);
};
const hasToolResult = (request: RecordedRequest) => request.body.messages.some((message: { role: string }) => message.role === 'tool');
const toolResults = (chatId: number) =>
  environment.openai.modelCalls
    .filter((call) => JSON.stringify(call.body.messages).includes(`chat ${chatId}`))
    .flatMap((call) => call.body.messages.filter((message: any) => message.role === 'tool').map((message: any) => String(message.content)));
const uploadsTo = (chatId: number) => environment.telegram.uploads.filter((upload) => upload.chatId === chatId);
const answersTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));

describe('send_file on Telegram, end to end', () => {
  it('sends a picture with sendPhoto and a PDF with sendDocument, from the workspace', async () => {
    const chatId = 3001;
    const pdf = pdfBytes('report');
    putInWorkspace(chatId, 'chart.png', PNG_BYTES);
    putInWorkspace(chatId, 'out/report.pdf', pdf);
    environment.openai.script.respondWith((request) => {
      if (!hasToolResult(request)) return reply.toolCall('send_file', { path: 'chart.png', caption: 'the chart' });
      if (request.body.messages.filter((message: any) => message.role === 'tool').length === 1) return reply.toolCall('send_file', { path: 'out/report.pdf' });
      return 'Here you go.';
    });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, `send me the files (chat ${chatId})`));
    await waitFor(() => answersTo(chatId).includes('Here you go.'), { timeoutMs: 20_000, what: 'the answer' });
    const [photo, document] = uploadsTo(chatId);
    expect(photo).toMatchObject({ method: 'sendPhoto', fileName: 'chart.png', caption: 'the chart' });
    expect(photo!.bytes.equals(PNG_BYTES)).toBe(true);
    expect(document).toMatchObject({ method: 'sendDocument', fileName: 'report.pdf' });
    expect(document!.bytes.equals(pdf)).toBe(true);
    expect(uploadsTo(chatId)).toHaveLength(2);
  });

  it('refuses a path outside the workspace and a missing file, as tool errors the model reads', async () => {
    const chatId = 3002;
    environment.openai.script.respondWith((request) => {
      const results = request.body.messages.filter((message: any) => message.role === 'tool').length;
      if (results === 0) return reply.toolCall('send_file', { path: '../../../etc/hostname' });
      if (results === 1) return reply.toolCall('send_file', { path: 'nope.png' });
      return 'Could not send.';
    });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, `send a secret (chat ${chatId})`));
    await waitFor(() => answersTo(chatId).includes('Could not send.'), { timeoutMs: 20_000, what: 'the answer' });
    const [outside, missing] = toolResults(chatId).slice(-2);
    expect(outside).toMatch(/Permission denied: .* is outside the allowed paths/);
    expect(missing).toContain('Not found: nope.png');
    expect(uploadsTo(chatId)).toHaveLength(0);
  });

  it('a worker SIGKILL after the upload and before the turn is stored: the restarted service does not upload again', async () => {
    const chatId = 3003;
    putInWorkspace(chatId, 'photo.png', PNG_BYTES);
    let restarted = false;
    environment.openai.script.respondWith((request) => {
      if (!hasToolResult(request)) return reply.toolCall('send_file', { path: 'photo.png' });
      return restarted ? 'Sent it once.' : reply.hang();
    });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, `send the photo (chat ${chatId})`));
    await waitFor(() => uploadsTo(chatId).length === 1 && environment.openai.inFlight > 0, { timeoutMs: 20_000, what: 'the upload and the hanging next call' });
    await service.kill('SIGKILL');
    restarted = true;
    service = await startServiceProcess(serviceEnv());
    await waitFor(() => answersTo(chatId).includes('Sent it once.'), { timeoutMs: 40_000, what: 'the answer after the restart' });
    expect(uploadsTo(chatId)).toHaveLength(1);
    expect(answersTo(chatId)).toEqual(['Sent it once.']);
    // the turn is stored right after its answer went out
    const runs = await waitFor(async () => {
      const stored = await environment.sql`SELECT r.status FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${`%:dm:${chatId}`}`;
      return stored.length > 0 ? stored : undefined;
    }, { what: 'the stored run' });
    expect(runs).toEqual([{ status: 'completed' }]);
  });
});
