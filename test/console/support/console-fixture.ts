import type { FastifyInstance } from 'fastify';
import { PairingService } from '../../../src/access/index.js';
import type { BudgetsOverview } from '../../../src/budgets/index.js';
import { createHttpServer, registerAdminScope } from '../../../src/gateway/index.js';
import { mountConsole, type ConsoleDependencies, type ConsoleSection } from '../../../src/gateway/console/index.js';
import { createLogger } from '../../../src/observability/logger.js';
import { ensureSession, flushTurn, migrateDatabase, openDatabase, type Database, type SessionRow } from '../../../src/store/index.js';
import { turnRecord } from '../../store/fixtures.js';
import { createTestDatabase } from '../../support/services.js';

export const USER = 'ops';
export const PASSWORD = 'console:secret';
export const NOW = Date.parse('2026-03-10T12:00:00Z');
export const HOSTILE = '<script>alert("pwned")</script> & <img src=x onerror=alert(1)>';

export const authorization = (user = USER, password = PASSWORD) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
export const auth = { authorization: authorization() };

export interface ConsoleFixture {
  database: Database;
  pairing: PairingService;
  dm: SessionRow;
  group: SessionRow;
  /** Mounts the console (with the built-in sections, or `sections`) in a fresh server. */
  app(options?: {
    readOnly?: boolean;
    sections?: readonly ConsoleSection[];
    publicUrl?: string;
    budgets?: BudgetsOverview;
    /** The home page's live state, schedules and approvals (absent: the console says they are not available). */
    more?: Pick<ConsoleDependencies, 'status' | 'schedules' | 'approvals'>;
  }): Promise<FastifyInstance>;
  close(): Promise<void>;
}

/**
 * A migrated database with two sessions written by `flushTurn` (a DM of Ada Lovelace (@ada) with two turns,
 * one of them with hostile text; a titled Slack group whose turn has a failing tool call), and one pending
 * pairing.
 */
export async function createConsoleFixture(): Promise<ConsoleFixture> {
  const testDatabase = await createTestDatabase();
  const database = await openDatabase({ databaseUrl: testDatabase.url, dataDir: '/tmp' });
  await migrateDatabase(database);
  const db = database.db;
  const pairing = new PairingService(db, { clock: () => NOW, logger: createLogger({ level: 'silent' }) });

  const dm = await ensureSession(db, { key: 'agent:main:telegram:bot:dm:4242', agentId: 'main', channel: 'telegram', accountId: 'bot', chatId: '4242', chatType: 'dm', userId: '4242' });
  const group = await ensureSession(db, {
    key: 'agent:main:slack:T1:group:C0OPS',
    agentId: 'main',
    channel: 'slack',
    accountId: 'T1',
    chatId: 'C0OPS',
    chatType: 'group',
    title: 'Ops <Room> & "friends"',
  });
  const first = turnRecord(dm, { runId: 'run-dm-1' });
  await flushTurn(db, { ...first, people: [{ channel: 'telegram', userId: '4242', name: 'Ada Lovelace', username: 'ada' }] });
  const second = turnRecord(dm, { runId: 'run-dm-2' });
  second.messages[0] = { ...second.messages[0]!, parts: [{ type: 'text', text: HOSTILE }] };
  second.run = { ...second.run, startedAt: new Date('2026-03-09T08:00:00Z'), finishedAt: new Date('2026-03-09T08:00:02Z') };
  await flushTurn(db, second);
  const failing = turnRecord(group, { runId: 'run-group-1' });
  failing.run = { ...failing.run, startedAt: new Date('2026-03-09T09:00:00Z'), finishedAt: new Date('2026-03-09T09:00:01Z'), costUsd: 0.25 };
  failing.spans = failing.spans.map((span) => (span.kind === 'tool' ? { ...span, isError: true, error: undefined, outputPreview: 'ENOENT: no such file <notes.txt>' } : span));
  await flushTurn(db, failing);
  await pairing.request({ channel: 'telegram', accountId: 'bot', userId: '555', userName: 'Mallory <b>' });

  const apps: FastifyInstance[] = [];
  return {
    database,
    pairing,
    dm,
    group,
    app: async (options = {}) => {
      const app = await createHttpServer({ routes: [], health: {}, logger: createLogger({ level: 'silent' }) });
      await registerAdminScope(app, { user: USER, password: PASSWORD }, (scope) =>
        mountConsole(
          scope,
          {
            db,
            pairing,
            dmPolicy: 'pairing',
            readOnly: options.readOnly ?? false,
            credentials: { user: USER, password: PASSWORD },
            publicUrl: options.publicUrl,
            logger: createLogger({ level: 'silent' }),
            clock: () => NOW,
            ...(options.budgets ? { budgets: options.budgets } : {}),
            ...options.more,
          },
          options.sections,
        ),
      );
      await app.listen({ port: 0, host: '127.0.0.1' });
      apps.push(app);
      return app;
    },
    close: async () => {
      await Promise.all(apps.map((app) => app.close()));
      await database.close();
      await testDatabase.drop();
    },
  };
}

export function portOf(app: FastifyInstance): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}
