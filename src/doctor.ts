import { createChannels } from '../channels/index.js';
import { commandToolSettings, describeSandboxHost, detectSandbox, SANDBOX_INSTALL_HINT } from './agent/index.js';
import type { AppConfig, LlmConfig } from './config/app-config.js';
import { errorMessage } from './core/errors.js';
import { complete, createChatModel } from './llm/index.js';
import { mcpDoctorChecks } from './mcp/mcp-doctor.js';
import { createLogger } from './observability/logger.js';
import { createRedis, waitUntilReady } from './queue/index.js';
import { openDatabase, pendingMigrations } from './store/index.js';

interface Check {
  name: string;
  run: () => Promise<string>;
  hint: string;
}

/** One line per check, with what to do when it fails; the exit code says whether all passed. */
export async function runDoctor(config: AppConfig): Promise<number> {
  const checks: Check[] = [
    { name: 'configuration', run: async () => `role ${config.role}, provider ${config.llm.provider}/${config.llm.model}`, hint: 'fix the variable named above' },
    {
      name: 'redis',
      run: async () => {
        if (!config.redisUrl) return 'REDIS_URL unset: a redis-server from PATH will be started';
        const redis = createRedis(config.redisUrl, 'producer');
        try {
          await waitUntilReady(redis, 3_000);
          const policy = (await redis.config('GET', 'maxmemory-policy')) as string[];
          return `reachable, maxmemory-policy ${policy[1] ?? 'unknown'}${policy[1] === 'noeviction' ? '' : ' (BullMQ needs noeviction)'}`;
        } finally {
          redis.disconnect();
        }
      },
      hint: 'start Redis or fix REDIS_URL',
    },
    {
      name: 'postgres',
      run: async () => {
        const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
        try {
          await database.ping();
          const pending = await pendingMigrations(database);
          return `${database.kind} reachable, ${pending} pending migration(s)${pending ? ' (run `cli migrate` or start the service)' : ''}`;
        } finally {
          await database.close();
        }
      },
      hint: 'start PostgreSQL or fix DATABASE_URL',
    },
    // one 1-token request per agent's model (several agents may use several providers), and per fallback model
    ...config.agents.flatMap((agent): Check[] => [
      {
        name: config.agents.length > 1 ? `llm (${agent.id})` : 'llm',
        run: () => pingModel(agent.llm),
        hint: 'check the API key, LLM_MODEL and the base URL',
      },
      ...agent.fallbackModels.map(
        (fallback): Check => ({
          name: `llm fallback (${config.agents.length > 1 ? `${agent.id}: ` : ''}${fallback.provider}:${fallback.model})`,
          run: () => pingModel(fallback),
          hint: `check ${fallback.provider === 'openai' ? 'OPENAI_API_KEY and OPENAI_BASE_URL' : 'ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL'} (or the fallback's apiKey and baseUrl) and the model name in ${agent.id === config.agents[0]!.id ? 'LLM_FALLBACK_MODELS or ' : ''}fallbackModels`,
        }),
      ),
    ]),
    {
      name: 'channels',
      run: async () => {
        const noMemory = { has: async () => false, remember: async () => undefined };
        const channels = await createChannels(config, createLogger({ level: 'silent' }), noMemory);
        return channels.length ? channels.map((channel) => `${channel.name} account ${channel.accountId} ok`).join(', ') : 'none configured';
      },
      hint: 'check the platform tokens (TELEGRAM_BOT_TOKEN …)',
    },
    { name: 'sandbox', run: async () => checkSandbox(config), hint: `${SANDBOX_INSTALL_HINT}, or set tools.bash.sandbox: off (tools.cli[<name>].sandbox for a CLI tool)` },
    ...mcpDoctorChecks(config.agents),
  ];
  let failures = 0;
  for (const check of checks) {
    try {
      process.stdout.write(`ok    ${check.name}: ${await check.run()}\n`);
    } catch (error) {
      failures += 1;
      process.stdout.write(`FAIL  ${check.name}: ${errorMessage(error)} — ${check.hint}\n`);
    }
  }
  return failures === 0 ? 0 : 1;
}

/** One tiny request, no retries: the credentials, the base URL and the model name all work. */
async function pingModel(llm: LlmConfig): Promise<string> {
  const model = createChatModel({ ...llm, stream: false, maxRetries: 0 });
  await complete(model, { system: 'Reply with OK.', messages: [{ role: 'user', parts: [{ type: 'text', text: 'ping' }] }], maxTokens: 1 });
  return `${llm.provider}/${llm.model} answered`;
}

/** Fails only when an agent runs bash or a CLI tool with the sandbox on and bubblewrap cannot run here. */
function checkSandbox(config: AppConfig): string {
  const tools = config.agents.flatMap((agent) => commandToolSettings(agent.tools).map((setting) => ({ ...setting, name: `${agent.id}/${setting.tool}` })));
  const sandboxed = tools.filter((tool) => tool.sandboxed).map((tool) => tool.name);
  const unconfined = tools.filter((tool) => !tool.sandboxed).map((tool) => `${tool.name} (${tool.setting}: off)`);
  const usage =
    (sandboxed.length > 0 ? `; sandboxes ${sandboxed.join(', ')}` : '; no agent runs bash or CLI tools in it') +
    (unconfined.length > 0 ? `; UNCONFINED: ${unconfined.join(', ')}` : '');
  const availability = detectSandbox();
  if (availability.available) return `${describeSandboxHost(availability.host)}${usage}`;
  if (sandboxed.length > 0) throw new Error(`bubblewrap cannot run: ${availability.reason}; needed by ${sandboxed.join(', ')}`);
  return `bubblewrap not available (${availability.reason})${usage}`;
}
