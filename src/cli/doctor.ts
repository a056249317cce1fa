import { createChannels } from '../../channels/index.js';
import { commandToolSettings, describeSandboxHost, detectSandbox, SANDBOX_INSTALL_HINT } from '../agent/index.js';
import type { AppConfig, ConfigInspection } from '../config/index.js';
import type { Channel } from '../core/index.js';
import { SLACK_SCOPES_HINT } from '../../channels/index.js';
import type { LlmConfig } from '../config/app-config.js';
import { errorMessage } from '../core/errors.js';
import { checkRedisServerOnPath, checkThroughService, describeRunningService, readinessOf, type Readiness } from './doctor-embedded.js';
import { acquireDataDirLock, dataDirHolder } from '../lifecycle/data-dir-lock.js';
import { complete, createChatModel } from '../llm/index.js';
import { mcpDoctorChecks } from '../mcp/mcp-doctor.js';
import { createLogger } from '../observability/logger.js';
import { createRedisClient, waitUntilReady } from '../redis/index.js';
import { databaseOptionsOf, describeConnections, openDatabase, pendingMigrations } from '../store/index.js';

/** Passed, but worth the operator's attention: printed as WARN, and does not fail the run. */
export class Warning {
  constructor(readonly text: string) {}
}

interface Check {
  name: string;
  run: () => Promise<string | Warning>;
  hint: string;
}

export const NO_CHANNEL_HINT =
  'nobody can reach this bot: set TELEGRAM_BOT_TOKEN, or SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN), or FEISHU_APP_ID with FEISHU_APP_SECRET (or accounts in the config file)';

/**
 * One line per check (ok, WARN or FAIL with what to do), every check run whatever failed before it: every
 * configuration problem gets its line, and the other checks run on the valid part of the configuration. With a
 * service running in DATA_DIR, its embedded Redis and database are checked through its /readyz, never opened.
 * The exit code says whether nothing failed.
 */
export async function runDoctor({ config, problems }: ConfigInspection): Promise<number> {
  const holder = !config.redisUrl || !config.databaseUrl ? dataDirHolder(config.dataDir) : undefined;
  let readiness: Promise<Readiness> | undefined;
  const serviceReadiness = () => (readiness ??= readinessOf(holder!));
  const noMemory = { has: async () => false, remember: async () => undefined, keepText: async () => undefined, textOf: async () => undefined, claim: async () => false, raise: async () => undefined, read: async () => 0, note: async () => undefined, noted: async () => [] };
  let created: Promise<Channel[]> | undefined;
  // the channels are created once: their line and the Slack scopes line read the same auth.test
  const channelsOnce = () => (created ??= createChannels(config, createLogger({ level: 'silent' }), noMemory));
  const checks: Check[] = [
    ...configurationChecks(config, problems),
    ...(holder ? [{ name: 'service', run: () => describeRunningService(holder, serviceReadiness()), hint: "see the service's log" }] : []),
    {
      name: 'redis',
      run: async () => {
        if (!config.redisUrl) return holder ? checkThroughService('redis', 'its redis-server (REDIS_URL unset)', holder, serviceReadiness()) : checkRedisServerOnPath(config);
        const redis = createRedisClient({ url: config.redisUrl, cluster: config.redisCluster }, 'producer');
        try {
          await waitUntilReady(redis, 3_000);
          const policy = (await redis.config('GET', 'maxmemory-policy')) as string[];
          return `reachable, maxmemory-policy ${policy[1] ?? 'unknown'}${policy[1] === 'noeviction' ? '' : ' (BullMQ needs noeviction)'}`;
        } finally {
          redis.disconnect();
        }
      },
      hint: config.redisUrl ? 'start Redis or fix REDIS_URL' : 'install Redis (its redis-server) or set REDIS_URL',
    },
    {
      name: 'postgres',
      run: async () => {
        if (!config.databaseUrl && holder) return checkThroughService('postgres', 'the embedded database (PGlite, DATABASE_URL unset)', holder, serviceReadiness());
        // the embedded database is one process's: held while doctor looks into it
        const lock = config.databaseUrl ? undefined : acquireDataDirLock(config.dataDir, 'doctor');
        const database = await openDatabase(databaseOptionsOf(config));
        try {
          await database.ping();
          const pending = await pendingMigrations(database);
          const connections = await describeConnections(databaseOptionsOf(config));
          return `${database.kind} reachable, ${pending} pending migration(s)${pending ? ' (run `cli migrate` or start the service)' : ''}${connections}`;
        } finally {
          await database.close();
          lock?.release();
        }
      },
      hint: 'start PostgreSQL or fix DATABASE_URL (and DATABASE_MIGRATION_URL, DATABASE_POOLER when set)',
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
        const channels = await channelsOnce();
        if (channels.length === 0) return new Warning(`none configured — ${NO_CHANNEL_HINT}`);
        return channels.map((channel) => `${channel.name} account ${channel.accountId} ok`).join(', ');
      },
      hint: 'check the platform tokens (TELEGRAM_BOT_TOKEN …)',
    },
    ...(config.accounts.slack.length > 0
      ? [{ name: 'slack scopes', run: () => checkSlackScopes(channelsOnce), hint: SLACK_SCOPES_HINT }]
      : []),
    { name: 'sandbox', run: async () => checkSandbox(config), hint: `${SANDBOX_INSTALL_HINT}, or set tools.bash.sandbox: off (tools.cli[<name>].sandbox for a CLI tool)` },
    ...mcpDoctorChecks(config.agents),
  ];
  let failures = 0;
  for (const check of checks) {
    try {
      const outcome = await check.run();
      process.stdout.write(outcome instanceof Warning ? `WARN  ${check.name}: ${outcome.text}\n` : `ok    ${check.name}: ${outcome}\n`);
    } catch (error) {
      failures += 1;
      process.stdout.write(`FAIL  ${check.name}: ${errorMessage(error)} — ${check.hint}\n`);
    }
  }
  return failures === 0 ? 0 : 1;
}

/**
 * Each Slack account's granted scopes against those the service uses (channels/slack/app-permissions.ts, the same
 * list as docs/slack-app-manifest.yaml): fails naming every missing scope. Not checked when the channels did not start.
 */
async function checkSlackScopes(channelsOnce: () => Promise<Channel[]>): Promise<string | Warning> {
  const channels = await channelsOnce().catch(() => undefined);
  if (channels === undefined) return new Warning('not checked: the Slack channel did not start (see the channels line)');
  const lines = channels
    .filter((channel) => channel.name === 'slack' && channel.describeSetup)
    .map((channel) => {
      try {
        return `account ${channel.accountId}: ${channel.describeSetup!()}`;
      } catch (error) {
        throw new Error(`account ${channel.accountId}: ${errorMessage(error)}`);
      }
    });
  return lines.join(', ');
}

/** One line when the configuration is valid; one FAIL line per problem otherwise. */
function configurationChecks(config: AppConfig, problems: string[]): Check[] {
  if (problems.length === 0) {
    return [{ name: 'configuration', run: async () => `role ${config.role}, provider ${config.llm.provider}/${config.llm.model}`, hint: '' }];
  }
  return problems.map((problem) => ({
    name: 'configuration',
    run: async () => {
      throw new Error(problem);
    },
    hint: 'fix the variable named here (the other checks ran as if it were unset)',
  }));
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
