import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { TrustProxy } from '../config/trust-proxy.js';
import type { WebhookRoute } from '../core/channel.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { limitConnectionsPerAddress } from './connection-limit.js';
import { connectionsCheckingIntervalMs, DEFAULT_HTTP_LIMITS, type HttpLimits } from './http-limits.js';
import { MAX_BODY_BYTES, readBodyWithin } from './raw-body.js';

export { MAX_BODY_BYTES };

export interface HealthChecks {
  /** Each check throws when its dependency does not answer. */
  [dependency: string]: () => Promise<unknown>;
}

export interface HttpServerOptions {
  routes: WebhookRoute[];
  health: HealthChecks;
  logger: Logger;
  metrics?: Metrics;
  /** Timeouts and the per-address connection cap; unset fields take `DEFAULT_HTTP_LIMITS`. */
  limits?: Partial<HttpLimits>;
  /**
   * TRUST_PROXY: whose X-Forwarded-For names the client in `request.ip` (Fastify's `trustProxy`); unset or false:
   * the connection's address, whatever the header says. The per-address connection cap always counts connections.
   */
  trustProxy?: TrustProxy;
}

/** One HTTP server: webhook routes (raw bodies, verified by their channel), health, readiness, metrics. */
export async function createHttpServer(options: HttpServerOptions): Promise<FastifyInstance> {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const headersTimeoutMs = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const app = Fastify({
    bodyLimit: MAX_BODY_BYTES,
    logger: false,
    return503OnClosing: true,
    trustProxy: fastifyTrustProxy(options.trustProxy),
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    // given to http.createServer too: Node checks headersTimeout against requestTimeout there, and
    // enforces both only on each tick of connectionsCheckingInterval (30 s by default)
    http: {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      connectionsCheckingInterval: connectionsCheckingIntervalMs({ ...limits, headersTimeoutMs }),
    },
  });
  let lastRefusalLog = 0;
  limitConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress, (address) => {
    options.metrics?.httpConnectionsRefused.inc();
    if (Date.now() - lastRefusalLog < 60_000) return;
    lastRefusalLog = Date.now();
    options.logger.warn({ address, max: limits.maxConnectionsPerAddress }, 'refusing connections over HTTP_MAX_CONNECTIONS_PER_ADDRESS (logged once a minute)');
  });
  // Channels verify signatures over the exact bytes, so every body reaches them as a string; one over the
  // limit is read to its end (up to a bound) and then answered 413, so that the sender reads the answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request: FastifyRequest, payload: IncomingMessage) => readBodyWithin(payload));

  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) options.logger.error({ err: error }, 'unhandled gateway error');
    void reply.code(status).send({ error: status === 500 ? 'internal error' : error.message });
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const failures: Record<string, string> = {};
    await Promise.all(
      Object.entries(options.health).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2_000);
        } catch (error) {
          failures[name] = error instanceof Error ? error.message : String(error);
        }
      }),
    );
    if (Object.keys(failures).length > 0) return reply.code(503).send({ status: 'unavailable', failures });
    return { status: 'ready' };
  });
  const { metrics } = options;
  if (metrics) {
    app.get('/metrics', async (_request, reply) => {
      const { contentType, body } = await metrics.render();
      return reply.header('content-type', contentType).send(body);
    });
    // Every webhook is counted, including the ones refused before a handler ran (413, 400, 404). Labels
    // come from the matched route and a fixed set of values, never from the request: a raw path or query
    // string would make one series per request (and could carry a secret).
    app.addHook('onResponse', async (request, reply) => {
      const matched = request.routeOptions.url;
      const channel = matched === undefined ? (request.is404 && request.url.startsWith('/webhooks/') ? 'unmatched' : undefined) : webhookChannels.get(matched);
      if (channel === undefined) return;
      metrics.webhookRequests.inc({ channel, status: String(reply.statusCode) });
      metrics.webhookAckSeconds.observe({ channel }, reply.elapsedTime / 1000);
    });
  }

  const webhookChannels = new Map<string, string>();
  for (const route of options.routes) {
    webhookChannels.set(route.path, webhookChannelOf(route.path));
    app.route({
      method: route.method,
      url: route.path,
      handler: async (request, reply) => {
        const rawBody = typeof request.body === 'string' ? request.body : '';
        const response = await route.handle({ headers: request.headers, rawBody });
        if (response.headers) void reply.headers(response.headers);
        return reply.code(response.status).send(response.body ?? '');
      },
    });
  }
  return app;
}

/**
 * Fastify takes addresses and `true` as they are; a hop count it now refuses (it fails closed: a client that reaches
 * the service directly could claim any address), so a hop count is given as proxy-addr's own rule for one: the
 * connection's peer and the next `hops - 1` X-Forwarded-For entries from the right are proxies.
 */
function fastifyTrustProxy(trustProxy: TrustProxy | undefined): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trustProxy !== 'number') return trustProxy ?? false;
  const hops = trustProxy;
  return hops > 0 ? (_address, hop) => hop < hops : false;
}

const PLATFORMS = new Set(['telegram', 'slack', 'feishu']);

/** `/webhooks/<platform>/…` → the platform; any other route → `other`. */
function webhookChannelOf(routePath: string): string {
  const platform = routePath.split('/')[2] ?? '';
  return PLATFORMS.has(platform) ? platform : 'other';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
