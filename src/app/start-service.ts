import { startTelemetry } from '../observability/telemetry.js';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { holdConnection } from '../gateway/connection-leader.js';
import { createHttpServer } from '../gateway/index.js';
import { connectionName } from '../gateway/service-status.js';
import type { ProcessActivity } from '../lifecycle/process-activity.js';
import { moduleLogger } from '../observability/logger.js';
import { LeaderLease } from '../redis/index.js';
import { mountAdmin } from './admin-setup.js';
import { buildGateway } from './gateway-role.js';
import { buildInfrastructure } from './infrastructure.js';
import { buildSharedServices } from './shared-services.js';
import { startWorkerRole } from './worker-role.js';

export interface RunningService {
  /** The HTTP port actually bound (PORT=0 picks a free one). */
  port: number;
  /** Stops everything within SHUTDOWN_GRACE_MS (see `stopBudget`); rejects when some part did not stop in time. */
  stop(): Promise<void>;
  /** Inbound messages being handled and turns running. */
  activity: ProcessActivity;
}

/**
 * The composition root: infrastructure, the services both roles share, then what ROLE asks for (the worker, the
 * gateway and its console), the HTTP server every role has (health, readiness, metrics), and the platforms'
 * connections. Each part registers how it stops; they stop in the reverse order.
 */
export async function startService(config: AppConfig): Promise<RunningService> {
  const logger = moduleLogger('app');
  const infra = await buildInfrastructure(config, logger);
  try {
    // stopped after the workers (steps stop in reverse order): the last turns' spans go out too
    const telemetry = await startTelemetry(config.telemetry, infra.metrics, moduleLogger('telemetry'));
    if (telemetry) infra.onStop('telemetry export', () => telemetry.stop());
    const shared = await buildSharedServices(infra);
    const runsGateway = config.role !== 'worker';
    if (config.role !== 'gateway') await startWorkerRole(infra, shared);
    const gateway = runsGateway ? buildGateway(infra, shared) : undefined;
    const server = await createHttpServer({
      routes: gateway ? shared.channels.all().flatMap((channel) => channel.webhookRoutes(gateway.sink)) : [],
      health: { redis: () => infra.redis.ping(), postgres: () => infra.database.ping() },
      logger: moduleLogger('gateway'),
      metrics: infra.metrics,
      limits: config.http,
      trustProxy: config.trustProxy,
    });
    if (gateway) await mountAdmin(server, infra, shared, gateway);
    await server.listen({ port: config.port, host: config.host });
    infra.onStop('http server', () => server.close());
    infra.lock?.announce(localUrl(config.host, boundPort(server)));
    if (gateway) {
      gateway.activity.start();
      infra.onStop('channel activity', async () => gateway.activity.stop());
      for (const channel of shared.channels.all()) {
        if (!channel.inboundConnection) {
          await channel.startInbound(gateway.sink);
          infra.onStop(`${channel.name} inbound`, () => channel.stopInbound());
          continue;
        }
        // long polling, Socket Mode, the long connection: one process at a time holds it (a lease in Redis)
        const held = await holdConnection({
          lease: LeaderLease.named(infra.redis, infra.keys, connectionName(channel), config.connectionLeaseMs),
          name: `${channel.name}:${channel.accountId}`,
          open: () => channel.startInbound(gateway.sink),
          close: () => channel.stopInbound(),
          logger: moduleLogger('connections'),
        });
        infra.onStopWithRedis(`${channel.name} inbound`, () => held.stop());
      }
    }
    if (shared.channels.all().length === 0) {
      logger.warn('no channel configured: set TELEGRAM_BOT_TOKEN (or SLACK_BOT_TOKEN / FEISHU_APP_ID) to talk to the bot');
    }
    const port = boundPort(server);
    logger.info(
      {
        role: config.role,
        port,
        channels: shared.channels.all().map((channel) => `${channel.name}:${channel.accountId}`),
        agents: config.agents.map((agent) => agent.id),
        configFile: config.configFile,
      },
      'service started',
    );
    return { port, stop: () => infra.stopAll(), activity: infra.activity };
  } catch (error) {
    await infra.stopAll().catch((stopError: unknown) => logger.warn({ err: stopError }, 'could not undo the start completely'));
    throw error;
  }
}

/** How a process on this machine reaches the server (a wildcard HOST listens on loopback too). */
function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

function boundPort(server: FastifyInstance): number {
  const address = server.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}
