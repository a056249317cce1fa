import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../doubles/http-double.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/** Issue 10 §4: tool output that would overflow a small window is trimmed before every call, mid-turn. */
let environment: E2eEnvironment;
let service: ServiceProcess;
const WINDOW = 16_384;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  // the double counts every prompt with the real tokenizer and refuses one over the window, as OpenAI does
  environment.openai.settings.contextWindow = WINDOW;
  service = await startServiceProcess(environment.env({ LLM_CONTEXT_WINDOW: String(WINDOW), LLM_MAX_RETRIES: '0' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const toolResults = (request: RecordedRequest) => request.body.messages.filter((message: { role: string }) => message.role === 'tool');

describe('context pressure inside a turn', () => {
  it('four tool results of ~40 KB each in a 16K-token window: the turn completes without a context-length error', async () => {
    const chatId = 9201;
    const workspace = join(environment.dataDir, 'workspaces', String(chatId));
    mkdirSync(workspace, { recursive: true });
    const paragraph = 'The quarterly report lists revenue by region, costs by department and the headcount plan. ';
    for (const index of [1, 2, 3, 4]) writeFileSync(join(workspace, `report-${index}.txt`), `REPORT ${index} START\n${paragraph.repeat(450)}\nREPORT ${index} END`);
    environment.openai.script.respondWith((request) => {
      const done = toolResults(request).length;
      return done < 4 ? reply.toolCall('read_file', { path: `report-${done + 1}.txt` }) : `Read ${done} reports.`;
    });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, 'summarize the four reports'));
    const answer = await waitFor(
      () => environment.telegram.callsOf('sendMessage').find((call) => call.params.chat_id === chatId && !call.failed),
      { timeoutMs: 40_000, what: 'the answer' },
    );
    expect(answer.params.text).toBe('Read 4 reports.');
    expect(environment.openai.contextLengthErrors).toBe(0);
    const requests = environment.openai.modelCalls;
    expect(requests).toHaveLength(5);
    // the newest result reaches the model (head and tail at least), older ones are trimmed to make room
    const last = JSON.stringify(toolResults(requests.at(-1)!));
    expect(last).toContain('REPORT 4 START');
    expect(last).toContain('REPORT 4 END');
    expect(last).toMatch(/characters (trimmed|cut to fit the context window)|Old tool result content cleared/);
  });
});
