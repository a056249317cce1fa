// `npm run bench:context` (issue 10): a scripted 200-turn conversation against the doubles, through the built
// service, with a 16K-token context window. Progress on stderr; stdout ends with one JSON line of figures.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import postgres from 'postgres';
import type { RecordedRequest } from '../test/doubles/http-double.js';
import { reply } from '../test/doubles/model-script.js';
import { startOpenAiDouble } from '../test/doubles/openai-double.js';
import { countPromptTokens } from '../test/doubles/prompt-tokens.js';
import { startTelegramDouble } from '../test/doubles/telegram-double.js';
import { createTestDatabase, TEST_REDIS_URL, uniqueName } from '../test/support/services.js';
import { MEMORY_FLUSH_SYSTEM } from '../src/agent/memory-flush.js';
import { percentile } from './percentiles.js';
import { promptSplitFigures } from './prompt-split-figures.js';
import { progress } from './progress.js';
import { startServiceChild } from './service-process.js';

const TURNS = Number(process.env.BENCH_CONTEXT_TURNS ?? 200);
const WINDOW = 16_384;
const WEBHOOK_SECRET = 'bench-context-secret';
const CHAT_ID = 4242;

const ENGLISH = [
  'Can you help me plan the migration of our billing service to the new cluster?',
  'What are the risks if we move the database first and the workers later?',
  'Please write a short checklist for the on-call engineer during the cut-over.',
  'How should we roll back if the payment provider starts failing after the switch?',
];
const CHINESE = [
  '请帮我总结一下上周关于数据库迁移的讨论，重点是风险和时间安排。',
  '如果新集群的延迟比旧集群高，我们应该先检查哪些指标？',
  '能不能用中文写一份给运维同事的切换步骤说明，尽量简洁一些？',
  '我们需要在周五之前完成压测，你觉得还缺哪些准备工作？',
];
const ANSWER_EN =
  'Here is a plan: first mirror the writes, then move the read traffic, then switch the workers one region at a time. ' +
  'Keep the old cluster warm for a day so a rollback is a configuration change, not a restore. ';
const ANSWER_ZH = '好的。建议分三步：先双写数据，再切换读流量，最后按区域逐步切换工作进程。旧集群保留一天，以便随时回滚。';

/** Every fifth turn the model reads a large file (a log excerpt) before it answers. */
const toolTurn = (turn: number) => turn % 5 === 0;

const isSummary = (request: RecordedRequest) => JSON.stringify(request.body.messages[0]).includes('You summarize conversations');
/** The memory flush before a summary: its own short call, like the summary not part of the conversation's prompt. */
const isMemoryFlush = (request: RecordedRequest) => JSON.stringify(request.body.messages[0]).includes(MEMORY_FLUSH_SYSTEM.slice(0, 60));
const isSideCall = (request: RecordedRequest) => isSummary(request) || isMemoryFlush(request);
const hasToolResult = (request: RecordedRequest) => request.body.messages.at(-1)?.role === 'tool';

function responder(request: RecordedRequest, text: string) {
  if (isMemoryFlush(request)) return '- The user is migrating a billing service to a new cluster.';
  if (isSummary(request)) {
    return 'The user is migrating a billing service to a new cluster; we planned mirrored writes, staged reads, per-region worker switch, a one-day rollback window, and a checklist for on-call. 用户需要中文的切换说明和压测准备清单。';
  }
  const turn = Number(/turn (\d+)/.exec(text)?.[1] ?? 0);
  if (toolTurn(turn) && request.body.tools && !hasToolResult(request)) return reply.toolCall('read_file', { path: `logs-${turn}.txt` });
  return turn % 2 === 0 ? ANSWER_ZH.repeat(2) : ANSWER_EN.repeat(2);
}

const telegram = await startTelegramDouble();
const openai = await startOpenAiDouble({ responder });
openai.settings.contextWindow = WINDOW;
const database = await createTestDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'bench-context-'));
const workspace = join(dataDir, 'workspaces', String(CHAT_ID));
mkdirSync(workspace, { recursive: true });
const logLine = (index: number) => `2026-11-23T10:${String(index % 60).padStart(2, '0')}:00Z worker-${index % 7} job=${1000 + index} status=ok latency_ms=${(index * 37) % 900} 延迟正常\n`;
for (let turn = 5; turn <= TURNS; turn += 5) writeFileSync(join(workspace, `logs-${turn}.txt`), Array.from({ length: 600 }, (_, index) => logLine(index + turn)).join(''));

const prefix = uniqueName('bench_context');
const service = await startServiceChild({
  TELEGRAM_BOT_TOKEN: telegram.token,
  TELEGRAM_API_ROOT: telegram.apiRoot,
  TELEGRAM_MODE: 'webhook',
  TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
  OPENAI_API_KEY: 'sk-bench',
  OPENAI_BASE_URL: openai.baseUrl,
  LLM_MODEL: 'gpt-4o-mini',
  LLM_CONTEXT_WINDOW: String(WINDOW),
  LLM_STREAM: 'false',
  DATABASE_URL: database.url,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: prefix,
  DATA_DIR: dataDir,
  LOG_LEVEL: process.env.BENCH_CONTEXT_LOG_LEVEL ?? 'warn',
});
const sql = postgres(database.url, { max: 1, onnotice: () => {} });
progress(`bench:context: ${TURNS} turns, ${WINDOW}-token window, service pid ${service.pid}`);

try {
  const sent = () => telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === CHAT_ID && !call.failed).length;
  for (let turn = 1; turn <= TURNS; turn++) {
    const pool = turn % 2 === 0 ? CHINESE : ENGLISH;
    const text = `${pool[turn % pool.length]} (turn ${turn})`;
    const before = sent();
    const response = await fetch(`${service.url}/webhooks/telegram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
      body: JSON.stringify(telegram.makeUpdate.privateText(CHAT_ID, text)),
    });
    if (!response.ok) throw new Error(`webhook answered ${response.status}`);
    const deadline = Date.now() + 30_000;
    // answered and stored, so the next turn loads this one
    while (sent() === before || (await sql`SELECT count(*)::int AS n FROM runs`)[0]!.n < turn) {
      if (Date.now() > deadline) throw new Error(`turn ${turn} was not answered within 30 s:\n${service.output().slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (turn % 20 === 0) progress(`turn ${turn}/${TURNS}`);
  }
  // background summaries finish after the last answer
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  const main = openai.modelCalls.filter((request) => !isSideCall(request) && request.status === 200);
  const promptTokens = await Promise.all(main.map((request) => countPromptTokens(request.body)));
  // one figure per turn: its largest request (a tool turn makes two)
  const perTurn = new Map<number, number>();
  main.forEach((request, index) => {
    const turn = Number(/turn (\d+)\)/.exec(JSON.stringify(request.body.messages.findLast((message: { role: string }) => message.role === 'user')))?.[1]);
    perTurn.set(turn, Math.max(perTurn.get(turn) ?? 0, promptTokens[index]!));
  });

  // what sending the whole stored conversation (no pruning, no summary) would cost at each turn
  const system = main[0]!.body.messages[0].content as string;
  const tools = main[0]!.body.tools ? countTokens(JSON.stringify(main[0]!.body.tools)) : 0;
  const stored = await sql`SELECT m.role, m.parts::text AS parts FROM messages m ORDER BY m.seq`;
  const fullReplay: number[] = [];
  let running = countTokens(system) + tools;
  for (const row of stored) {
    const parts = JSON.parse(row.parts as string) as Array<{ text?: string; content?: string; arguments?: string }>;
    running += 4 + parts.reduce((sum, part) => sum + countTokens(part.text ?? part.content ?? part.arguments ?? ''), 0);
    if (row.role === 'user') fullReplay.push(running);
  }

  // the share of each request's prompt that is byte-identical to the previous request's (message-level prefix)
  let shares = 0;
  for (let index = 1; index < main.length; index++) {
    const previous = main[index - 1]!.body;
    const current = main[index]!.body;
    if (JSON.stringify(previous.tools) !== JSON.stringify(current.tools)) continue;
    let common = 0;
    while (common < previous.messages.length && common < current.messages.length && JSON.stringify(previous.messages[common]) === JSON.stringify(current.messages[common])) common++;
    const prefixTokens = await countPromptTokens({ tools: current.tools, messages: current.messages.slice(0, common) });
    shares += prefixTokens / promptTokens[index]!;
    if (process.env.BENCH_CONTEXT_DEBUG) progress(`request ${index}: ${current.messages.length} messages, same as previous up to ${common} of ${previous.messages.length}, share ${(prefixTokens / promptTokens[index]!).toFixed(2)}`);
  }
  const [summaries] = await sql`SELECT count(*)::int AS n FROM summaries`;
  const turnsMeasured = [...perTurn.values()];
  const lastTurnPrompt = perTurn.get(TURNS) ?? 0;
  const lastTurnFullReplay = fullReplay.at(-1) ?? 0;
  const report = {
    turns: TURNS,
    contextWindow: WINDOW,
    promptTokensPerTurnP50: percentile(turnsMeasured, 50),
    promptTokensPerTurnMax: Math.max(...turnsMeasured),
    fullReplayTokensPerTurnP50: percentile(fullReplay, 50),
    promptToFullReplayAtLastTurn: Number((lastTurnPrompt / lastTurnFullReplay).toFixed(3)),
    cacheablePrefixShare: Number((shares / Math.max(1, main.length - 1)).toFixed(3)),
    contextLengthErrors: openai.contextLengthErrors,
    summariesWritten: summaries!.n,
    modelRequests: openai.modelCalls.length,
    // where the prompt went: each part's share of the turns' estimated prompt tokens, and the estimate's error
    ...(await promptSplitFigures(sql)),
  };
  if (process.env.BENCH_CONTEXT_LOG_LEVEL) process.stderr.write(service.output());
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await sql.end();
  await service.stop();
  await Promise.all([telegram.close(), openai.close()]);
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
