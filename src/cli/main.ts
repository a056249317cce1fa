import { parseArgs } from 'node:util';
import { startService } from '../app/index.js';
import { inspectConfig, loadConfig, readDotEnv, type AppConfig } from '../config/index.js';
import { BotError } from '../core/errors.js';
import { acquireDataDirLock, DataDirInUseError } from '../lifecycle/data-dir-lock.js';
import { IDLE_HEAP_RECLAIM, startIdleHeapReclaim } from '../lifecycle/idle-heap-reclaim.js';
import { StopSignals } from '../lifecycle/stop-signals.js';
import { createLogger, moduleLogger, setRootLogger } from '../observability/logger.js';
import { databaseOptionsOf, migrateDatabase, openDatabase } from '../store/index.js';

const USAGE = `usage: chatbot <command>
  start [--role all|gateway|worker]   run the service (default role from ROLE, else all)
  migrate                             apply pending database migrations
  doctor                              check configuration, Redis, PostgreSQL, the LLM and channels
  pairing list                        pending pairing requests (DM_POLICY=pairing)
  pairing approve <CODE>              allow the user who got this code`;

const COMMANDS = new Set(['start', 'migrate', 'doctor', 'pairing']);

async function start(config: AppConfig): Promise<void> {
  // A library's stray rejection must not take every running turn down with it (postgres.js's type-fetch query on a
  // new connection was one: it is no longer asked, see store/postgres-database.ts). Durable state lives in Redis and
  // PostgreSQL, so logging it and carrying on is the safer choice.
  process.on('unhandledRejection', (reason: unknown) => {
    moduleLogger('process').error({ err: reason }, 'unhandled promise rejection; the service keeps running');
  });
  // A thrown exception still ends the process (its state is unknown; the supervisor starts it again), but as a log
  // line of its own, with the stack, where operators and log shippers look, not only as Node's text on stderr.
  process.on('uncaughtExceptionMonitor', (error, origin) => {
    moduleLogger('process').fatal({ err: error, origin }, 'uncaught exception: the service exits');
  });
  const signals = new StopSignals({
    graceMs: config.shutdownGraceMs,
    write: (line) => process.stderr.write(`${line}\n`),
    exit: (code) => process.exit(code),
  });
  const service = await startService(config);
  signals.started(() => service.stop());
  const heapLogger = moduleLogger('memory');
  startIdleHeapReclaim({
    ...IDLE_HEAP_RECLAIM,
    isBusy: service.activity.busyProbe(),
    onReclaim: ({ beforeBytes, afterBytes, pauseMs }) =>
      heapLogger.debug({ beforeMb: Math.round(beforeBytes / 2 ** 20), afterMb: Math.round(afterBytes / 2 ** 20), pauseMs: Math.round(pauseMs) }, 'quiet after a burst: heap given back'),
    onTrim: ({ beforeBytes, afterBytes, pauseMs }) =>
      heapLogger.debug({ outsideHeapBeforeMb: Math.round(beforeBytes / 2 ** 20), outsideHeapAfterMb: Math.round(afterBytes / 2 ** 20), pauseMs: Math.round(pauseMs) }, 'quiet after a burst: C heap trimmed'),
  });
}

async function migrate(config: AppConfig): Promise<void> {
  // the embedded database is one process's: not beside a running service
  const lock = config.databaseUrl ? undefined : acquireDataDirLock(config.dataDir, 'migrate');
  const database = await openDatabase(databaseOptionsOf(config));
  try {
    await migrateDatabase(database);
    process.stdout.write('migrations applied\n');
  } finally {
    await database.close();
    lock?.release();
  }
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!COMMANDS.has(command)) {
    process.stderr.write(`unknown command "${command}"\n${USAGE}\n`);
    process.exitCode = 1;
    return;
  }
  readDotEnv();
  if (values.role) process.env.ROLE = values.role;
  if (command === 'doctor') {
    // every problem gets its line, and the other checks run on the valid part of the configuration
    const inspection = inspectConfig(process.env);
    setRootLogger(createLogger({ level: inspection.config.logLevel, format: inspection.config.logFormat }));
    const { runDoctor } = await import('./doctor.js');
    process.exitCode = await runDoctor(inspection);
    return;
  }
  // migrate and pairing call no LLM: no API key needed
  const config = loadConfig(command === 'migrate' || command === 'pairing' ? { ...process.env, ROLE: 'gateway' } : process.env);
  setRootLogger(createLogger({ level: config.logLevel, format: config.logFormat }));
  switch (command) {
    case 'start':
      return start(config);
    case 'migrate':
      return migrate(config);
    case 'pairing': {
      const { runPairingCommand } = await import('./pairing-command.js');
      process.exitCode = await runPairingCommand(config, positionals.slice(1), (line) => process.stdout.write(`${line}\n`));
      return;
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof DataDirInUseError) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof BotError && error.code === 'config') {
    // one line per problem, each naming its variable (or the config file and field)
    for (const line of error.message.split('\n')) process.stderr.write(`configuration error: ${line}\n`);
  } else {
    process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
