#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startService } from './app.js';
import { loadConfig, readDotEnv, type AppConfig } from './config/index.js';
import { BotError } from './core/errors.js';
import { createLogger, moduleLogger, setRootLogger } from './observability/logger.js';
import { databaseOptionsOf, migrateDatabase, openDatabase } from './store/index.js';

const USAGE = `usage: chatbot <command>
  start [--role all|gateway|worker]   run the service (default role from ROLE, else all)
  migrate                             apply pending database migrations
  doctor                              check configuration, Redis, PostgreSQL, the LLM and channels
  pairing list                        pending pairing requests (DM_POLICY=pairing)
  pairing approve <CODE>              allow the user who got this code`;

async function start(config: AppConfig): Promise<void> {
  // A library's stray rejection must not take every running turn down with it: postgres.js leaves the
  // rejection of its type-fetch query on a new connection unhandled when PostgreSQL drops mid-connect.
  // Durable state lives in Redis and PostgreSQL, so logging it and carrying on is the safer choice.
  process.on('unhandledRejection', (reason: unknown) => {
    moduleLogger('process').error({ err: reason }, 'unhandled promise rejection; the service keeps running');
  });
  const service = await startService(config);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`received ${signal}: shutting down\n`);
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function migrate(config: AppConfig): Promise<void> {
  const database = await openDatabase(databaseOptionsOf(config));
  try {
    await migrateDatabase(database);
    process.stdout.write('migrations applied\n');
  } finally {
    await database.close();
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
  readDotEnv();
  if (values.role) process.env.ROLE = values.role;
  // migrate and pairing call no LLM: no API key needed
  const config = loadConfig(command === 'migrate' || command === 'pairing' ? { ...process.env, ROLE: 'gateway' } : process.env);
  setRootLogger(createLogger({ level: config.logLevel, format: config.logFormat }));
  switch (command) {
    case 'start':
      return start(config);
    case 'migrate':
      return migrate(config);
    case 'doctor': {
      const { runDoctor } = await import('./doctor.js');
      process.exitCode = await runDoctor(config);
      return;
    }
    case 'pairing': {
      const { runPairingCommand } = await import('./pairing-command.js');
      process.exitCode = await runPairingCommand(config, positionals.slice(1), (line) => process.stdout.write(`${line}\n`));
      return;
    }
    default:
      throw new BotError('config', `unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof BotError && error.code === 'config') {
    process.stderr.write(`configuration error: ${error.message}\n`);
  } else {
    process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
