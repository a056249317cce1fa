import { afterAll, beforeAll, describe, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS, deliverLikeTelegram, waitUntilStored } from './support/fault-service.js';
import { auditTelegramLedger, expectNothingLostOrDoubled } from './support/ledger.js';

let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ LLM_TIMEOUT_MS: '2000' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

describe('fault: the LLM fails', () => {
  it('429 with Retry-After, 500, a timeout and a stream cut mid-answer: every message answered once', async () => {
    const faults = [reply.rateLimited(1), reply.serverError(500), reply.hang(), reply.cutMidStream('This answer is cut off in the middle of a sentence', 2)];
    const accepted = [];
    for (const [index, fault] of faults.entries()) {
      environment.openai.script.push(fault);
      const chatId = 9500 + index;
      accepted.push(await deliverLikeTelegram(() => service.url, environment.telegram.makeUpdate.privateText(chatId, `llm fault ${index}`)));
      await waitFor(() => environment.telegram.callsOf('sendMessage').some((call) => call.params.chat_id === chatId && !call.failed), {
        timeoutMs: 30_000,
        what: `the answer after fault ${index}`,
      });
    }
    await waitUntilStored(environment, accepted, environment.telegram.botId);
    expectNothingLostOrDoubled(
      await auditTelegramLedger({ scenario: 'LLM 429/500/timeout/cut stream', sql: environment.sql, telegram: environment.telegram, botId: environment.telegram.botId, accepted }),
    );
  }, FAULT_TIMEOUT_MS);
});
