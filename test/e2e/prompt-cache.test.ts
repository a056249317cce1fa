import { afterEach, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment | undefined;
let service: ServiceProcess | undefined;

afterEach(async () => {
  await service?.stop();
  await environment?.close();
  service = undefined;
  environment = undefined;
});

/** Without the cache markers, which move forward from one request to the next by design. */
function withoutMarkers(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, member: unknown) => (key === 'cache_control' ? undefined : member)));
}

async function twoTurns(env: E2eEnvironment, chatId: number): Promise<void> {
  for (const text of ['first question', 'second question']) {
    const before = env.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId).length;
    await postTelegramUpdate(service!.url, env.telegram.makeUpdate.privateText(chatId, text));
    await waitFor(() => env.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId).length > before, { what: `the answer to "${text}"` });
    // the turn is stored before the next one loads its history
    await waitFor(async () => (await env.sql`SELECT count(*)::int AS n FROM runs`)[0]!.n === (text === 'first question' ? 1 : 2));
  }
}

describe('prompt caching: the prefix of two consecutive turns is byte-identical', () => {
  it('Anthropic: system prompt and tools unchanged, the first request a prefix of the second, with breakpoints', async () => {
    environment = await createE2eEnvironment();
    service = await startServiceProcess(environment.env({ OPENAI_API_KEY: '', ANTHROPIC_API_KEY: 'sk-ant-test', LLM_PROVIDER: 'anthropic', LLM_MODEL: 'claude-sonnet-5-5' }));
    await twoTurns(environment, 3101);
    const [first, second] = environment.anthropic.requests.filter((call) => call.path.startsWith('/v1/messages')).map((call) => call.body);
    expect(JSON.stringify(second!.system)).toBe(JSON.stringify(first!.system));
    expect(JSON.stringify(second!.tools)).toBe(JSON.stringify(first!.tools));
    const firstMessages = withoutMarkers(first!.messages) as unknown[];
    const secondMessages = withoutMarkers(second!.messages) as unknown[];
    expect(JSON.stringify(secondMessages.slice(0, firstMessages.length))).toBe(JSON.stringify(firstMessages));
    // breakpoints: the system prompt, the last tool, the end of the earlier history, the end of the request
    expect(second!.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(second!.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(JSON.stringify(second!.messages.at(-2))).toContain('cache_control');
    expect(JSON.stringify(second!.messages.at(-1))).toContain('cache_control');
  });

  it('OpenAI: the whole first request is a byte-identical prefix of the second (automatic prefix caching)', async () => {
    environment = await createE2eEnvironment();
    service = await startServiceProcess(environment.env());
    await twoTurns(environment, 3102);
    const [first, second] = environment.openai.modelCalls.map((call) => call.body);
    expect(JSON.stringify(second!.tools)).toBe(JSON.stringify(first!.tools));
    expect(JSON.stringify(second!.messages.slice(0, first!.messages.length))).toBe(JSON.stringify(first!.messages));
    // the clock is in the user message envelope, not in the system prompt
    expect(first!.messages[0].content).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(first!.messages.at(-1).content).toMatch(/^\[\w{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\]\nfirst question$/);
  });
});
