import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * CONTRACT §12 (seed 001 S6.14): in a scheduled task's run nobody watches, so bash, CLI tools, write_file,
 * send_file and tools needing approval are refused unless the config allows them for scheduled runs; an
 * allowance pressed in the chat never reaches a firing.
 */
const agent = (extra = '') => `
agents:
  - id: main
    tools: { bash: { enabled: true } }
    toolPolicy: { requireApproval: [write_file] }
${extra}`;

let environment: E2eEnvironment;
let configDirectory: string;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  configDirectory = mkdtempSync(join(tmpdir(), 'unattended-e2e-'));
  // the model does what the prompt's keyword asks; after a tool it repeats what the tool said
  environment.openai.script.respondWith((request, text) => {
    const last = (request.body.messages as Array<{ role: string; content: string }>).at(-1)!;
    if (last.role === 'tool') return `Tool said: ${last.content}`;
    if (text.includes('RUN-BASH')) return reply.toolCall('bash', { command: 'echo ran >> marker.txt && echo BASH-RAN' });
    if (text.includes('WRITE-NOTE')) return reply.toolCall('write_file', { path: 'notes.txt', content: `${/WRITE-NOTE (\w+)/.exec(text)?.[1]}\n`, append: true });
    if (text.includes('LIST-FILES')) return reply.toolCall('list_directory', {});
    return `You said: ${text}`;
  });
});

afterEach(async () => {
  await service?.stop();
  service = undefined;
});

afterAll(async () => {
  await environment?.close();
  rmSync(configDirectory, { recursive: true, force: true });
});

async function start(config: string) {
  const file = join(configDirectory, `bot-${Math.random().toString(36).slice(2)}.config.yaml`);
  writeFileSync(file, config);
  service = await startServiceProcess(environment.env({ CONFIG_FILE: file, LLM_STREAM: 'false' }));
  return service;
}

const messagesIn = (chatId: number) => environment.telegram.visibleMessages(chatId);
const workspaceFile = (userId: number, name: string) => join(environment.dataDir, 'workspaces', String(userId), name);
const contentOf = (userId: number, name: string) => (existsSync(workspaceFile(userId, name)) ? readFileSync(workspaceFile(userId, name), 'utf8') : '');
type Keyboard = { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
const buttonsOf = (markup: unknown) => ((markup as Keyboard | undefined)?.inline_keyboard ?? []).flat();

/** The model schedules `prompt` to run once in three seconds (in the chat of `chatId`). */
async function scheduleSoon(chatId: number, prompt: string): Promise<void> {
  environment.openai.script.push(reply.toolCall('schedule_task', { prompt, at: new Date(Date.now() + 3_000).toISOString() }), 'Scheduled.');
  const before = messagesIn(chatId).length;
  await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'please schedule it'));
  await waitFor(() => messagesIn(chatId).slice(before).find((message) => message.text === 'Scheduled.'), { what: 'the task scheduled' });
}

/** The answer a firing's run posts: the model repeats the tool result it got. */
const firingAnswer = (chatId: number, after: number) =>
  waitFor(() => messagesIn(chatId).find((message) => message.messageId > after && message.text.startsWith('Tool said:')), { timeoutMs: 30_000, what: "the firing's answer" });

const lastMessageId = (chatId: number) => messagesIn(chatId).at(-1)?.messageId ?? 0;

describe('tools in a scheduled run (nobody watching)', () => {
  it('a firing that asks for bash gets a refusal the model can explain, and nothing runs; read-only tools work; in the chat bash runs', async () => {
    await start(agent());
    const chatId = 8101;
    await scheduleSoon(chatId, 'RUN-BASH for the nightly report');
    const refused = await firingAnswer(chatId, lastMessageId(chatId));
    expect(refused.text).toContain("bash is not available in a scheduled task's run");
    expect(refused.text).toContain('schedules.allowTools');
    expect(contentOf(chatId, 'marker.txt')).toBe('');
    // the refusal is the tool's result in the run's trace, and no approval was asked in the chat
    await waitFor(async () => (await environment.sql`SELECT 1 FROM run_spans WHERE kind = 'tool' AND name = 'bash'`).length > 0, { what: 'the bash span' });
    const [span] = await environment.sql`SELECT is_error, output_preview FROM run_spans WHERE kind = 'tool' AND name = 'bash'`;
    expect(span).toMatchObject({ is_error: true });
    expect(span!.output_preview).toContain('not available in a scheduled');
    expect(messagesIn(chatId).filter((message) => buttonsOf(message.replyMarkup).length > 0)).toHaveLength(0);

    await scheduleSoon(chatId, 'LIST-FILES of the workspace');
    const listed = await firingAnswer(chatId, lastMessageId(chatId));
    expect(listed.text).not.toContain('not available');

    // the same request from a person in the chat runs
    const before = lastMessageId(chatId);
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'RUN-BASH please'));
    const ran = await firingAnswer(chatId, before);
    expect(ran.text).toContain('BASH-RAN');
    expect(contentOf(chatId, 'marker.txt')).toBe('ran\n');
  }, 90_000);

  it('with schedules.allowTools: [bash] for the agent, a firing runs bash', async () => {
    await start(agent('    schedules: { allowTools: [bash] }'));
    const chatId = 8102;
    await scheduleSoon(chatId, 'RUN-BASH for the nightly report');
    const ran = await firingAnswer(chatId, lastMessageId(chatId));
    expect(ran.text).toContain('BASH-RAN');
    expect(contentOf(chatId, 'marker.txt')).toBe('ran\n');
  }, 60_000);

  it('"Allow for this session" pressed in the chat covers the chat\'s turns, never a firing of the same session', async () => {
    await start(agent());
    const chatId = 8103;
    const before = lastMessageId(chatId);
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'WRITE-NOTE first'));
    const prompt = await waitFor(() => messagesIn(chatId).find((message) => message.messageId > before && buttonsOf(message.replyMarkup).length === 3), { what: 'the approval request' });
    const forSession = buttonsOf(prompt.replyMarkup)[1]!;
    expect(forSession.text).toBe('Allow for this session');
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.callbackQuery(chatId, chatId, forSession.callback_data, prompt.messageId));
    await firingAnswer(chatId, prompt.messageId);
    expect(contentOf(chatId, 'notes.txt')).toBe('first\n');
    // in the chat, the allowance holds: no new question
    const second = lastMessageId(chatId);
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'WRITE-NOTE second'));
    await firingAnswer(chatId, second);
    expect(contentOf(chatId, 'notes.txt')).toBe('first\nsecond\n');

    await scheduleSoon(chatId, 'WRITE-NOTE scheduled');
    const refused = await firingAnswer(chatId, lastMessageId(chatId));
    expect(refused.text).toContain("write_file is not available in a scheduled task's run");
    expect(contentOf(chatId, 'notes.txt')).toBe('first\nsecond\n');
    // refused, not asked: the only approval request is the first one
    expect(messagesIn(chatId).filter((message) => message.text.startsWith('Approval needed'))).toHaveLength(1);
  }, 90_000);
});
