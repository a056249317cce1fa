import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTelegramChannel } from '../../channels/telegram/index.js';
import { ChannelRegistry } from '../../src/core/channel-registry.js';
import type { InboundMessage } from '../../src/core/inbound-message.js';
import { createChatModel } from '../../src/llm/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { TokenCalibration } from '../../src/agent/index.js';
import type { TurnRequest } from '../../src/core/turn-contract.js';
import { turnCheckpointStore } from '../../src/turn/checkpoint-store.js';
import { migrateDatabase, openDatabase, type Database } from '../../src/store/index.js';
import { DeliveryRecords } from '../../src/turn/delivery-records.js';
import { createRedisClient, KeySpace, runningTurnValue, TurnStateStore, type RedisClient } from '../../src/redis/index.js';
import { createTurnRunner } from '../../src/turn/run-turn.js';
import { createTurnStore } from '../../src/turn/store-adapter.js';
import type { TurnDependencies, TurnStore } from '../../src/turn/turn-dependencies.js';
import { startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double.js';
import { startTelegramDouble, type TelegramDouble } from '../doubles/telegram-double.js';
import { createTestDatabase, deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';
import { GroupContext } from '../../src/redis/group-context.js';

export interface TurnFixture {
  telegram: TelegramDouble;
  openai: OpenAiDouble;
  database: Database;
  redis: RedisClient;
  /** The Redis keys of this fixture's turns and delivery records. */
  keys: KeySpace;
  store: TurnStore;
  /** `extra` adds or replaces dependencies (budgets, a clock…). */
  runTurnWith(store: TurnStore, extra?: Partial<TurnDependencies>): ReturnType<typeof createTurnRunner>;
  dmFrom(userId: number, text: string, botId: number): InboundMessage;
  /** A request as the worker makes it; the holder is registered in Redis as the scheduler would. */
  request(turnId: string, messages: InboundMessage[], overrides?: Partial<TurnRequest>): Promise<TurnRequest>;
  close(): Promise<void>;
}

/** One turn runner on real Redis and PostgreSQL, talking through grammY and the openai SDK to doubles. */
export async function createTurnFixture(): Promise<TurnFixture> {
  const [telegram, openai, testDatabase] = await Promise.all([startTelegramDouble(), startOpenAiDouble(), createTestDatabase()]);
  const database = await openDatabase({ databaseUrl: testDatabase.url, dataDir: mkdtempSync(join(tmpdir(), 'turn-')) });
  await migrateDatabase(database);
  const target = testRedisTarget();
  const redis = createRedisClient(target, 'worker');
  const prefix = uniqueName('turn');
  const keys = new KeySpace(prefix, 2, target.cluster);
  const turnState = new TurnStateStore(redis, keys);
  const logger = createLogger({ level: 'silent' });
  const channels = new ChannelRegistry();
  channels.add(
    await createTelegramChannel({
      config: { token: telegram.token, apiRoot: telegram.apiRoot, mode: 'webhook', webhookSecret: 'x' },
      agentId: 'main',
      logger,
    }),
  );
  const store = createTurnStore(database.db);
  // as the scheduler does: a turn id claimed again is a resumed turn
  const claimedBefore = new Set<string>();
  const runTurnWith = (turnStore: TurnStore, extra: Partial<TurnDependencies> = {}) =>
    createTurnRunner({
      store: turnStore,
      channels,
      model: createChatModel({
        provider: 'openai',
        model: 'gpt-4o-mini',
        apiKey: 'sk-test',
        baseUrl: openai.baseUrl,
        stream: true,
        contextWindow: 128_000,
        maxOutputTokens: 4096,
        timeoutMs: 10_000,
        maxRetries: 0,
      }),
      tools: [],
      groupContext: new GroupContext(redis, keys),
      deliveries: new DeliveryRecords(turnState),
      checkpoints: turnCheckpointStore(turnState),
      calibration: new TokenCalibration(),
      settings: { systemPrompt: undefined, maxIterations: 5, historyTurns: 50, inputGuard: 'warn', traceVerbose: false, dataDir: tmpdir(), liveReplies: 'off' },
      logger,
      // fail fast here: these tests exercise what happens when the flush does not come through at all
      flushRetry: { maxWaitMs: 0, firstDelayMs: 1, maxDelayMs: 1 },
      ...extra,
    });
  return {
    telegram,
    openai,
    database,
    redis,
    keys,
    store,
    runTurnWith,
    dmFrom: (userId, text, botId) => ({
      conversation: { channel: 'telegram', accountId: String(botId), chatId: String(userId), chatType: 'dm', messageId: '1' },
      dedupeKey: `telegram:${botId}:${userId}:${Math.random()}`,
      sender: { id: String(userId), name: 'Ada' },
      text,
      sentAt: Date.now(),
      addressed: true,
      agentId: 'main',
    }),
    request: async (turnId, messages, overrides = {}) => {
      const resumed = claimedBefore.has(turnId);
      claimedBefore.add(turnId);
      const sessionKey = `agent:main:telegram:x:dm:${messages[0]!.sender.id}`;
      const holder = `holder-${Math.random()}`;
      await redis.hset(keys.session(sessionKey).turns, turnId, runningTurnValue(holder, Date.now() + 60_000));
      return {
        resumed,
        turnId,
        sessionKey,
        holder,
        messages,
        signal: new AbortController().signal,
        attempt: 1,
        finalAttempt: false,
        holdsLease: async () => true,
        ...overrides,
      };
    },
    close: async () => {
      await deleteTestKeys(redis, `{${prefix}:*`);
      await redis.quit();
      await database.close();
      await Promise.all([telegram.close(), openai.close()]);
      await testDatabase.drop();
    },
  };
}
