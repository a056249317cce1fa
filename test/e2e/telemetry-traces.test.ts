import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../doubles/http-double.js';
import { reply } from '../doubles/model-script.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../doubles/otlp-receiver.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * CONTRACT §21 end to end: the service exports one OpenTelemetry trace per turn over OTLP/HTTP (http/json here, so
 * the in-test receiver reads it as the collector would) with GenAI spans for model calls, execute_tool spans,
 * approvals, sub-agents as children, and a turn taken over after a SIGKILL in the same trace; no text by default.
 */
let environment: E2eEnvironment;
let receiver: OtlpReceiver;
let service: ServiceProcess | undefined;
let configDirectory: string;

const CONFIG = 'agents:\n  - id: main\n    toolPolicy:\n      requireApproval: [write_file]\n';

const serviceEnv = (extra: Record<string, string> = {}) =>
  environment.env({
    CONFIG_FILE: join(configDirectory, 'bot.config.yaml'),
    LLM_FALLBACK_MODELS: 'anthropic:claude-haiku-4-5',
    ANTHROPIC_API_KEY: 'sk-ant-test',
    LLM_MAX_RETRIES: '0',
    LLM_FAILOVER_COOLDOWN_MS: '0',
    TURN_LEASE_MS: '3000',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...extra,
  });

beforeAll(async () => {
  [environment, receiver] = await Promise.all([createE2eEnvironment(), startOtlpReceiver()]);
  configDirectory = mkdtempSync(join(tmpdir(), 'telemetry-e2e-'));
  writeFileSync(join(configDirectory, 'bot.config.yaml'), CONFIG);
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
  await receiver?.close();
  if (configDirectory) rmSync(configDirectory, { recursive: true, force: true });
});

const systemOf = (request: RecordedRequest) => String(request.body.messages?.[0]?.role === 'system' ? request.body.messages[0].content : '');
const isChild = (request: RecordedRequest) => systemOf(request).includes('You are a sub-agent');
const toolResults = (request: RecordedRequest) => request.body.messages.filter((message: { role: string }) => message.role === 'tool').length;
const mentions = (request: RecordedRequest, marker: string) => JSON.stringify(request.body.messages).includes(marker);
type Keyboard = { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
const buttonsOf = (markup: unknown) => ((markup as Keyboard | undefined)?.inline_keyboard ?? []).flat();

async function runIdOf(chatId: number): Promise<string> {
  const run = await waitFor(
    async () => (await environment.sql`SELECT r.id FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${`%:dm:${chatId}`}`)[0],
    { what: `the run of chat ${chatId}`, timeoutMs: 40_000 },
  );
  return String(run.id);
}

/** The turn's trace once its root span arrived (the root ends last, when the turn is stored). */
async function traceOf(runId: string): Promise<{ root: ReceivedSpan; spans: ReceivedSpan[] }> {
  const root = await waitFor(() => receiver.spans.find((span) => span.attributes['chatbot.turn.id'] === runId && span.parentSpanId === undefined), {
    what: 'the turn\u2019s root span',
    timeoutMs: 20_000,
  });
  // the root and the spans recorded with it leave in one batch; the attempt span ends right after it
  await waitFor(() => receiver.spans.some((span) => span.traceId === root.traceId && span.name === 'turn attempt' && span.attributes['chatbot.turn.outcome'] === 'completed'), {
    what: 'the last attempt\u2019s span',
  });
  return { root, spans: receiver.spans.filter((span) => span.traceId === root.traceId) };
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe('OpenTelemetry traces over OTLP', () => {
  it('one trace for a DM turn with a sub-agent, an approval, a tool call and a failover: GenAI spans, children in place, no text', async () => {
    service = await startServiceProcess(serviceEnv());
    const chatId = 9301;
    const userText = `please keep my secret plan (chat ${chatId})`;
    const argumentText = 'ARGUMENT-TEXT-7781';
    const childText = 'CHILD-ANSWER-5512';
    environment.openai.script.respondWith((request) => {
      if (!mentions(request, `chat ${chatId}`) && !isChild(request)) return 'unrelated';
      if (isChild(request)) return { parts: [{ type: 'text', text: childText }], usage: { inputTokens: 70, outputTokens: 7 } };
      const results = toolResults(request);
      if (results === 0) return { ...reply.toolCall('spawn_agent', { prompt: `Look this up for chat ${chatId}` }), usage: { inputTokens: 50, outputTokens: 5 } };
      if (results === 1) return { ...reply.toolCall('write_file', { path: 'notes.txt', content: argumentText }), usage: { inputTokens: 60, outputTokens: 6 } };
      return reply.overloaded();
    });
    environment.anthropic.script.respondWith(() => ({ parts: [{ type: 'text', text: 'All done.' }], usage: { inputTokens: 80, outputTokens: 8 } }));

    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, userText));
    const prompt = await waitFor(() => environment.telegram.visibleMessages(chatId).find((message) => buttonsOf(message.replyMarkup).length === 3), { what: 'the approval request', timeoutMs: 30_000 });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.callbackQuery(chatId, chatId, buttonsOf(prompt.replyMarkup)[0]!.callback_data, prompt.messageId));
    await waitFor(() => environment.telegram.visibleMessages(chatId).some((message) => message.text === 'All done.'), { what: 'the answer', timeoutMs: 30_000 });

    const { root, spans } = await traceOf(await runIdOf(chatId));
    expect(root).toMatchObject({ name: 'invoke_agent main', serviceName: 'chatbot-service' });
    expect(root.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'main', 'chatbot.turn.status': 'completed' });
    // every span hangs off the root, directly or through its parents
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    for (const span of spans) {
      let at: ReceivedSpan | undefined = span;
      for (let hops = 0; at && at !== root && hops < 10; hops++) at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined;
      expect({ name: span.name, reachesRoot: at === root }).toEqual({ name: span.name, reachesRoot: true });
    }
    // the parked attempt and the one after the approval, both in this trace
    expect(named(spans, 'turn attempt').map((span) => span.attributes['chatbot.turn.outcome']).sort()).toEqual(['completed', 'parked']);
    expect(named(spans, 'queue wait')).toHaveLength(1);
    expect(named(spans, 'chat send')).toHaveLength(1);
    expect(named(spans, 'flush')).toHaveLength(1);

    // model calls: the parent's two, the child's, the primary that failed and the fallback that answered
    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.map((span) => [span.name, span.attributes['gen_ai.request.model'], span.attributes['gen_ai.response.model'] ?? null, span.status?.code ?? 0]).sort()).toEqual(
      [
        ['chat claude-haiku-4-5', 'claude-haiku-4-5', 'claude-haiku-4-5', 0],
        ['chat gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini', 0],
        ['chat gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini', 0],
        ['chat gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini', 0],
        ['chat gpt-4o-mini', 'gpt-4o-mini', null, 2],
      ].sort(),
    );
    const fallback = chats.find((span) => span.attributes['gen_ai.provider.name'] === 'anthropic')!;
    expect(fallback.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 80, 'gen_ai.usage.output_tokens': 8, 'gen_ai.response.finish_reasons': ['stop'] });
    const child = chats.find((span) => span.attributes['chatbot.subagent'] === true)!;
    expect(child.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 70, 'gen_ai.usage.output_tokens': 7 });

    // tool calls as execute_tool spans; the sub-agent's call under its spawn_agent call; the approval beside them
    const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((span) => span.name).sort()).toEqual(['execute_tool spawn_agent', 'execute_tool write_file']);
    const spawn = tools.find((span) => span.attributes['gen_ai.tool.name'] === 'spawn_agent')!;
    expect(child.parentSpanId).toBe(spawn.spanId);
    expect(spawn.parentSpanId).toBe(root.spanId);
    expect(named(spans, 'approval write_file')[0]!.attributes).toMatchObject({ 'gen_ai.tool.name': 'write_file', 'chatbot.approval.allowed': true });

    // no message text, tool arguments or results
    const exported = receiver.bodies.join('\n');
    for (const text of [userText, argumentText, childText, 'All done.', `Look this up for chat ${chatId}`]) expect(exported).not.toContain(text);
  }, 90_000);

  it('a worker SIGKILLed mid-turn: the takeover continues the same trace (and with OTEL_GENAI_CAPTURE_CONTENT=true records the text)', async () => {
    service ??= await startServiceProcess(serviceEnv());
    const chatId = 9302;
    const userText = `list my files and crash (chat ${chatId})`;
    let restarted = false;
    environment.openai.script.respondWith((request) => {
      if (!mentions(request, `chat ${chatId}`)) return 'unrelated';
      if (toolResults(request) === 0) return reply.toolCall('list_directory', {});
      return restarted ? 'Recovered after the crash.' : reply.hang();
    });
    const queueWaitsBefore = named(receiver.spans, 'queue wait').length;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, userText));
    await waitFor(() => environment.openai.modelCalls.some((call) => mentions(call, `chat ${chatId}`) && toolResults(call) === 1 && call.endedAt === undefined), {
      what: 'the call after the tool to hang',
      timeoutMs: 20_000,
    });
    // what the first worker exported before it died: the queue wait of the turn's first attempt
    const firstWait = await waitFor(() => named(receiver.spans, 'queue wait')[queueWaitsBefore], { what: 'the first worker\u2019s queue wait span' });
    await service.kill('SIGKILL');
    restarted = true;
    service = await startServiceProcess(serviceEnv({ OTEL_GENAI_CAPTURE_CONTENT: 'true' }));
    await waitFor(() => environment.telegram.visibleMessages(chatId).some((message) => message.text === 'Recovered after the crash.'), { what: 'the answer after the takeover', timeoutMs: 40_000 });

    const { root, spans } = await traceOf(await runIdOf(chatId));
    expect(firstWait.traceId).toBe(root.traceId);
    expect(firstWait.parentSpanId).toBe(root.spanId);
    const attempts = named(spans, 'turn attempt');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.attributes).toMatchObject({ 'chatbot.turn.resumed': true, 'chatbot.turn.outcome': 'completed' });
    // the first worker's model call and tool call (saved as steps) and the takeover's call
    expect(spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat')).toHaveLength(2);
    const tool = named(spans, 'execute_tool list_directory')[0]!;
    expect(tool.startMs).toBeLessThan(attempts[0]!.startMs);
    // the restarted process records text
    expect(String(root.attributes['gen_ai.input.messages'])).toContain(userText);
    expect(String(root.attributes['gen_ai.output.messages'])).toContain('Recovered after the crash.');
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBe('{}');
  }, 120_000);
});
