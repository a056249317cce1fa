import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(
    environment.env({ OPENAI_API_KEY: '', ANTHROPIC_API_KEY: 'sk-ant-test', LLM_PROVIDER: 'anthropic', LLM_MODEL: 'claude-test' }),
  );
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

describe('Anthropic provider, end to end', () => {
  it('answers a Telegram DM through the Messages API (streamed)', async () => {
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(3001, 'hi claude'));
    const sent = await waitFor(() => environment.telegram.callsOf('sendMessage').find((call) => call.params.chat_id === 3001));
    expect(sent.params.text).toBe('You said: hi claude');
    const [request] = environment.anthropic.requests.filter((call) => call.path.startsWith('/v1/messages'));
    expect(request!.body.model).toBe('claude-test');
    expect(request!.body.stream).toBe(true);
    expect(typeof request!.body.system === 'string' || Array.isArray(request!.body.system)).toBe(true);
    // The SDK authenticates with x-api-key or, in newer API versions, a bearer token.
    expect([request!.headers['x-api-key'], request!.headers.authorization]).toContain(
      request!.headers['x-api-key'] ? 'sk-ant-test' : 'Bearer sk-ant-test',
    );
    expect(environment.openai.modelCalls).toHaveLength(0);
    const [run] = await waitFor(async () => {
      const rows = await environment.sql`SELECT provider, model, status FROM runs`;
      return rows.length > 0 ? rows : undefined;
    });
    expect(run).toMatchObject({ provider: 'anthropic', model: 'claude-test', status: 'completed' });
  });
});
