import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oggOpusBytes, PNG_BYTES } from '../support/media-fixtures.js';
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

  it('sends a photo as a base64 image block with the caption as text', async () => {
    const fileId = environment.telegram.addFile(PNG_BYTES, 'jpg');
    const photo = [{ file_id: fileId, file_unique_id: 'p', width: 1, height: 1 }];
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(3002, '', { text: undefined, caption: 'describe it', photo }));
    const request = await waitFor(() => environment.anthropic.requests.find((call) => JSON.stringify(call.body?.messages ?? []).includes('describe it')));
    const blocks = request.body.messages.at(-1).content;
    // (the newest block may also carry the prompt-cache breakpoint)
    expect(blocks.find((block: any) => block.type === 'image')).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BYTES.toString('base64') } });
    expect(blocks.some((block: any) => block.type === 'text' && block.text.includes('describe it'))).toBe(true);
  });

  it('without any OpenAI-compatible key, tells the user voice messages are not supported here, and answers the rest', async () => {
    const bytes = oggOpusBytes();
    const fileId = environment.telegram.addFile(bytes, 'oga');
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(3003, 'listen to this', { voice: { file_id: fileId, file_unique_id: 'v', duration: 1 } }));
    const sent = await waitFor(() => environment.telegram.callsOf('sendMessage').find((call) => call.params.chat_id === 3003));
    expect(sent.params.text).toContain('The voice message could not be used: voice messages are not supported here.');
    expect(sent.params.text).toContain('listen to this');
    expect(environment.openai.transcriptions).toHaveLength(0);
    // nothing to do with the bytes, so they are not even fetched
    expect(environment.telegram.downloads.some((path) => path.includes(fileId))).toBe(false);
  });
});
