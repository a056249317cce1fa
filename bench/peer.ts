import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAiDouble } from '../test/doubles/openai-double.js';
import { startTelegramDouble } from '../test/doubles/telegram-double.js';
import { WEBHOOK_SECRET, type Deployment } from './deployment.js';
import type { Harness } from './harness.js';
import { capacitySearch, type CapacityResult } from './capacity.js';
import type { PhaseResult } from './phase.js';
import { rssMb } from './process-stats.js';
import { progress, sleep } from './progress.js';
import { peerScript, ROOT, startNodeChild, type ServiceChildProcess } from './service-process.js';
import { MessageTracker, tokenEchoResponder } from './tracker.js';
import { WebhookClient } from './webhook-client.js';

/**
 * A peer (bench/peers/<script>.ts) on doubles of its own, shaped like a deployment of the service so that the same
 * loads, tracker and probes measure it. Its keys in Redis start with `prefix:`. It has no /metrics: its pipeline
 * counters (turns, database statements) read as zero.
 */
export async function startPeerDeployment(options: { name: string; script: string; prefix: string; redisUrl: string }): Promise<Deployment & { readyMs: number }> {
  const [telegram, openai] = await Promise.all([startTelegramDouble(), startOpenAiDouble({ responder: tokenEchoResponder })]);
  let started: ServiceChildProcess;
  try {
    started = await startNodeChild(
      peerScript(options.script),
      [],
      {
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_BOT_USERNAME: telegram.botUsername,
        TELEGRAM_API_BASE_URL: telegram.apiRoot,
        TELEGRAM_WEBHOOK_SECRET_TOKEN: WEBHOOK_SECRET,
        OPENAI_API_KEY: 'sk-bench',
        OPENAI_BASE_URL: openai.baseUrl,
        REDIS_URL: options.redisUrl,
        PEER_KEY_PREFIX: options.prefix,
      },
      { readyPath: '/readyz', pollMs: 10 },
    );
  } catch (error) {
    await Promise.all([telegram.close(), openai.close()]);
    throw new Error(`peer ${options.script} ${error instanceof Error ? error.message : String(error)}`);
  }
  const client = new WebhookClient(started.url, WEBHOOK_SECRET);
  progress(`${options.name}: started ${options.script} (pid ${started.pid}) in ${started.readyMs.toFixed(0)} ms, keys ${options.prefix}:*`);
  return {
    name: options.name,
    prefix: options.prefix,
    telegram,
    openai,
    tracker: new MessageTracker(telegram, openai),
    client,
    children: [{ role: 'peer', process: started, pid: started.pid }],
    gatewayUrl: started.url,
    urls: [],
    readyMs: started.readyMs,
    stop: async () => {
      client.close();
      await started.stop(10_000);
      const output = started.output().trim();
      if (output) progress(`${options.name} (pid ${started.pid}) logged:\n${output.split('\n').slice(-20).join('\n')}`);
      await Promise.all([telegram.close(), openai.close()]);
    },
  };
}

export interface PeerResult {
  name: string;
  /** The peer's packages and their installed versions. */
  packages: Record<string, string>;
  readyMs: number;
  idleRssMb: number;
  rssAfterMb: number;
  warmup: PhaseResult;
  phase: PhaseResult;
  /** At the model's pace (when the run has `latency`): (b') and (b) on the peer, as on the service. */
  lowRateLatency?: PhaseResult;
  latency?: PhaseResult;
  /** The capacity search on the peer (when the run has `capacity`). */
  capacity?: CapacityResult;
  duplicated: number;
}

/** Every phase measured on the peer: its losses and failed POSTs are counted over them. */
export function peerPhases(peer: PeerResult): PhaseResult[] {
  return [peer.warmup, peer.phase, peer.lowRateLatency, peer.latency, ...(peer.capacity?.phases ?? [])].filter((phase): phase is PhaseResult => phase !== undefined);
}

const installedVersion = (name: string) => {
  try {
    return String(JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version);
  } catch {
    return 'missing';
  }
};

/**
 * `peers`: the Chat SDK bot (bench/peers/chat-sdk-bot.ts) under the load of phase (a): idle memory first, then every
 * session of the pool once, then the closed loop; then, when the run measures them on the service, the latency phases
 * (b') and (b) with the slow model and the capacity search, so that the comparison is also the one at the model's
 * pace. Its answers are checked as ours are, but its losses are its figure, not a failure of the run.
 */
export async function runChatSdkPeer(harness: Harness, redisUrl: string): Promise<PeerResult> {
  const { settings } = harness;
  const deployment = harness.track(await startPeerDeployment({ name: 'peer chat-sdk', script: 'chat-sdk-bot', prefix: harness.prefixFor('peer'), redisUrl }));
  try {
    const pid = deployment.children[0]!.pid;
    await sleep(settings.idleSeconds * 1000);
    const idleRssMb = rssMb(pid);
    progress(`peer chat-sdk: VmRSS ${idleRssMb.toFixed(1)} MB after ${settings.idleSeconds} s idle`);
    const sessions = harness.pool(deployment, { dmUsers: settings.dmPool, firstUserId: 6_000_000 });
    const options = { answerTimeoutMs: settings.peerAnswerTimeoutMs };
    const warmup = await harness.closedPhase(deployment, 'peer chat-sdk warm-up', sessions, Math.max(settings.warmupMessages, settings.dmPool + settings.groupPool), 60_000, options);
    const phase = await harness.closedPhase(deployment, 'peer chat-sdk throughput, model 0 ms', sessions, settings.throughputMessages, settings.throughputTimeLimitMs, options);
    const rssAfterMb = rssMb(pid);
    let lowRateLatency: PhaseResult | undefined;
    let latency: PhaseResult | undefined;
    if (settings.phases.has('latency')) {
      deployment.openai.settings.latencyMs = settings.slowModelMs;
      try {
        lowRateLatency = await harness.openPhase(
          deployment,
          `peer chat-sdk (b') open loop ${settings.lowOpenRate} msg/s for ${settings.lowOpenSeconds} s, model ${settings.slowModelMs} ms`,
          sessions,
          settings.lowOpenRate,
          settings.lowOpenSeconds,
          settings.peerAnswerTimeoutMs,
        );
        latency = await harness.openPhase(
          deployment,
          `peer chat-sdk (b) open loop ${settings.openRate} msg/s for ${settings.openSeconds} s, model ${settings.slowModelMs} ms`,
          sessions,
          settings.openRate,
          settings.openSeconds,
          settings.peerAnswerTimeoutMs,
        );
      } finally {
        deployment.openai.settings.latencyMs = 0;
      }
    }
    const capacity = settings.phases.has('capacity') ? await peerCapacity(harness, redisUrl) : undefined;
    return {
      name: 'chat-sdk',
      packages: Object.fromEntries(['chat', '@chat-adapter/telegram', '@chat-adapter/state-redis'].map((name) => [name, installedVersion(name)])),
      readyMs: deployment.readyMs,
      idleRssMb,
      rssAfterMb,
      warmup,
      phase,
      ...(lowRateLatency ? { lowRateLatency } : {}),
      ...(latency ? { latency } : {}),
      ...(capacity ? { capacity } : {}),
      duplicated: deployment.tracker.duplicateAnswers,
    };
  } finally {
    await harness.stop(deployment, { peer: true });
  }
}

/**
 * The capacity search on a peer of its own, started afresh as the service's capacity deployment is: a peer that lost
 * messages under (b)'s overload (messages it never answered) may have stopped answering new ones too, and its capacity
 * would then read 0 for what the phase before did to it.
 */
async function peerCapacity(harness: Harness, redisUrl: string): Promise<CapacityResult> {
  const deployment = harness.track(await startPeerDeployment({ name: 'peer chat-sdk (capacity)', script: 'chat-sdk-bot', prefix: harness.prefixFor('peer_capacity'), redisUrl }));
  try {
    return await capacitySearch(harness, deployment, { label: 'peer chat-sdk capacity', firstUserId: 7_000_000, answerTimeoutMs: harness.settings.peerAnswerTimeoutMs });
  } finally {
    await harness.stop(deployment, { peer: true });
  }
}
