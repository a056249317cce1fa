import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../doubles/http-double.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { TEST_SERVER } from '../mcp/support/mcp-servers.js';

/**
 * CONTRACT §11b through the built service: turns right after a start wait (bounded by MCP_STARTUP_WAIT_MS) for
 * the first connection attempt of their agent's MCP servers; a server that is not connected is named to the
 * model and in a tool error, never "Unknown tool"; the console's overview and /status say each server's state; and
 * "read-only" is the operator's word in scheduled runs and for sub-agents. (That the wait is bounded by the
 * setting while a server hangs is shown in test/mcp/startup-wait.test.ts.)
 *
 * - late: the fixture server, four seconds slow to start, every call needs approval;
 * - broken: a program that does not exist (down at once);
 * - liar / vouched: `wipe` deletes things and claims readOnlyHint; only vouched's config names it read-only.
 */
let environment: E2eEnvironment;
let service: ServiceProcess | undefined;
let directory: string;
const NODE = JSON.stringify(process.execPath);
const FIXTURE = JSON.stringify(TEST_SERVER);
const wipeLog = (name: string) => join(directory, `${name}-wipe.log`);
const AUTH = { authorization: `Basic ${btoa('ops:pw')}` };

const config = () => `
agents:
  - id: main
    mcpServers:
      late:
        command: ${NODE}
        args: [${FIXTURE}]
        env: { FIXTURE_START_DELAY_MS: "4000" }
        tools: { allow: [echo] }
        approval: always
      broken:
        command: /nonexistent/mcp-server
      liar:
        command: ${NODE}
        args: [${FIXTURE}]
        env: { FIXTURE_WIPE_FILE: ${JSON.stringify(wipeLog('liar'))} }
        tools: { allow: [wipe] }
      vouched:
        command: ${NODE}
        args: [${FIXTURE}]
        env: { FIXTURE_WIPE_FILE: ${JSON.stringify(wipeLog('vouched'))} }
        tools: { allow: [wipe] }
        readOnlyTools: [wipe]
`;

const systemOf = (request: RecordedRequest) => String(request.body.messages?.[0]?.role === 'system' ? request.body.messages[0].content : '');
const isChild = (request: RecordedRequest) => systemOf(request).includes('You are a sub-agent');
const toolNames = (request: RecordedRequest): string[] => (request.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
const lastMessage = (request: RecordedRequest) => (request.body.messages as Array<{ role: string; content: string }>).at(-1)!;
const mentioning = (marker: string) => environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages).includes(marker));

beforeAll(async () => {
  environment = await createE2eEnvironment();
  directory = mkdtempSync(join(tmpdir(), 'mcp-startup-e2e-'));
  writeFileSync(join(directory, 'bot.config.yaml'), config());
  // the model does what the message's keyword asks; after a tool it repeats what the tool said
  environment.openai.script.respondWith((request, text) => {
    if (isChild(request)) return 'The child looked.';
    const last = lastMessage(request);
    if (last.role === 'tool') return `Tool said: ${last.content}`;
    if (text.includes('please schedule')) return reply.toolCall('schedule_task', { prompt: /please schedule (.*)/.exec(text)![1]!, at: new Date(Date.now() + 3_000).toISOString() });
    if (text.includes('CALL-BROKEN')) return reply.toolCall('broken__lookup', { query: 'x' });
    if (text.includes('ECHO-LATE')) return reply.toolCall('late__echo', { text: 'from before the restart' });
    if (text.includes('WIPE-LIAR')) return reply.toolCall('liar__wipe', {});
    if (text.includes('WIPE-VOUCHED')) return reply.toolCall('vouched__wipe', {});
    if (text.includes('SPAWN')) return reply.toolCall('spawn_agent', { prompt: 'Look around with your tools.' });
    return `You said: ${text}`;
  });
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const start = async () => {
  service = await startServiceProcess(
    environment.env({ CONFIG_FILE: join(directory, 'bot.config.yaml'), MCP_STARTUP_WAIT_MS: '60000', TURN_LEASE_MS: '3000', ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw', LLM_STREAM: 'false' }),
  );
  return service;
};

const messagesIn = (chatId: number) => environment.telegram.visibleMessages(chatId);
const lastMessageId = (chatId: number) => messagesIn(chatId).at(-1)?.messageId ?? 0;
const toolSaid = (chatId: number, after: number, timeoutMs = 30_000) =>
  waitFor(() => messagesIn(chatId).find((message) => message.messageId > after && message.text.startsWith('Tool said:')), { timeoutMs, what: 'the answer after a tool' });
type Keyboard = { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
const buttonsOf = (markup: unknown) => ((markup as Keyboard | undefined)?.inline_keyboard ?? []).flat();

type McpRow = { worker: string; server: string; state: string; error: string | null };
const mcpRows = async (): Promise<McpRow[]> => ((await (await fetch(`${service!.url}/admin/api/overview`, { headers: AUTH })).json()) as { mcpServers: McpRow[] | null }).mcpServers ?? [];
const stateOf = (rows: McpRow[], server: string) => rows.find((row) => row.server === server)?.state;

describe('MCP servers right after a start', () => {
  it('a turn started at once waits for the first attempts, gets the late server’s tools, and is told which servers are unavailable', async () => {
    await start();
    const chatId = 9301;
    // sent the moment the service answers /healthz: the late server needs four seconds more
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'hello right after the start'));

    // meanwhile the console says which server is where (/readyz does not wait for any of them)
    const rows = await waitFor(async () => {
      const read = await mcpRows();
      return read.length === 4 ? read : undefined;
    }, { what: 'the four MCP servers in /admin/api/overview' });
    expect(stateOf(rows, 'late')).toBe('connecting');
    expect((await fetch(`${service!.url}/readyz`)).status).toBe(200);

    await waitFor(() => messagesIn(chatId).find((message) => message.text === 'You said: hello right after the start'), { what: 'the answer', timeoutMs: 30_000 });
    const [request] = mentioning('hello right after the start');
    expect(toolNames(request!)).toContain('late__echo');
    // one line names the server that is down, and why
    const notice = systemOf(request!).split('\n').find((line) => line.startsWith('Unavailable right now'));
    expect(notice).toMatch(/^Unavailable right now: the tools of MCP server broken \(could not connect: .*ENOENT\)\./);
    expect(toolNames(request!).some((name) => name.startsWith('broken__'))).toBe(false);

    const later = await mcpRows();
    expect(stateOf(later, 'late')).toBe('connected');
    expect(stateOf(later, 'broken')).toBe('down');
    expect(later.find((row) => row.server === 'broken')!.error).toContain('ENOENT');
    // and /status in the chat says the same for the session's agent
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, '/status'));
    const status = await waitFor(() => messagesIn(chatId).find((message) => message.text.startsWith('Model:')), { what: 'the /status answer' });
    expect(status.text).toContain('MCP servers: late connected; broken down; liar connected; vouched connected');
  }, 90_000);

  it('a call to a tool of a server that is down gets a tool error naming the server, not "Unknown tool"', async () => {
    const chatId = 9302;
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'CALL-BROKEN please'));
    const answer = await toolSaid(chatId, 0);
    expect(answer.text).toContain("MCP server 'broken' is unavailable");
    expect(answer.text).not.toContain('Unknown tool');
  }, 60_000);

  it('an approval allowed after a restart runs the tool it was asked for once its server has connected', async () => {
    const chatId = 9303;
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'ECHO-LATE please'));
    const prompt = await waitFor(() => messagesIn(chatId).find((message) => buttonsOf(message.replyMarkup).length === 3), { what: 'the approval request' });
    expect(prompt.text).toContain('late__echo');
    await service!.kill('SIGKILL');
    await start();
    // allowed the moment the new process answers: the late server is still starting
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.callbackQuery(chatId, chatId, buttonsOf(prompt.replyMarkup)[0]!.callback_data, prompt.messageId));
    const answer = await toolSaid(chatId, prompt.messageId);
    expect(answer.text).toContain('echo: from before the restart');
  }, 90_000);
});

describe('read-only is the operator’s word', () => {
  async function firing(chatId: number, prompt: string) {
    const before = lastMessageId(chatId);
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, `please schedule ${prompt}`));
    // the answer to scheduling it, then the firing's own answer some seconds later
    const scheduled = await toolSaid(chatId, before);
    return toolSaid(chatId, scheduled.messageId);
  }

  it('a scheduled run is refused the server’s "read-only" wipe, and runs the one the operator named in readOnlyTools', async () => {
    const chatId = 9304;
    const refused = await firing(chatId, 'WIPE-LIAR tonight');
    expect(refused.text).toContain("liar__wipe is not available in a scheduled task's run");
    expect(existsSync(wipeLog('liar'))).toBe(false);

    const ran = await firing(chatId, 'WIPE-VOUCHED tonight');
    expect(ran.text).toContain('every widget deleted');
    expect(readFileSync(wipeLog('vouched'), 'utf8')).toBe('wiped\n');
  }, 90_000);

  it('a sub-agent is offered the wipe the operator vouched for, never the one only its server calls read-only', async () => {
    const chatId = 9305;
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'SPAWN a helper'));
    await toolSaid(chatId, 0);
    const child = environment.openai.modelCalls.find((call) => isChild(call) && JSON.stringify(call.body.messages).includes('Look around with your tools.'));
    expect(toolNames(child!)).toContain('vouched__wipe');
    expect(toolNames(child!)).not.toContain('liar__wipe');
  }, 60_000);
});
