import { BotError } from '../core/errors.js';
import type { AppConfig } from './app-config.js';
import type { Environment } from './environment-schema.js';

/** DATABASE_URL, DATABASE_MIGRATION_URL and DATABASE_POOLER, checked against each other. */
export function databaseConfig(env: Environment): Pick<AppConfig, 'databaseUrl' | 'databaseMigrationUrl' | 'databasePooler'> {
  const pooler = env.DATABASE_POOLER ?? 'none';
  const fail = (message: string): never => {
    throw new BotError('config', message);
  };
  if (!env.DATABASE_URL) {
    if (env.DATABASE_MIGRATION_URL) fail('DATABASE_MIGRATION_URL: set without DATABASE_URL; the embedded database has no separate migration connection (set DATABASE_URL too, or unset it)');
    if (pooler === 'transaction') fail('DATABASE_POOLER: transaction needs DATABASE_URL, the pooler’s postgres:// URL (the embedded database has no pooler)');
  }
  if (pooler === 'transaction') {
    if (!env.DATABASE_MIGRATION_URL) {
      fail('DATABASE_MIGRATION_URL: required with DATABASE_POOLER=transaction; migrations hold a session-level lock a transaction pooler cannot keep, so give the direct postgres:// URL of the same database');
    }
    if (addressOf(env.DATABASE_MIGRATION_URL!) === addressOf(env.DATABASE_URL!)) {
      fail('DATABASE_MIGRATION_URL: the same address as DATABASE_URL, which goes through the transaction pooler (DATABASE_POOLER=transaction); give the direct address of PostgreSQL');
    }
  }
  return { databaseUrl: env.DATABASE_URL, databaseMigrationUrl: env.DATABASE_MIGRATION_URL, databasePooler: pooler };
}

/** `host:port,…/database` of a postgres:// URL (user, password and parameters left out; port 5432 when none is given). */
function addressOf(url: string): string {
  const [, hosts = '', database = ''] = /^postgres(?:ql)?:\/\/(?:[^@/?#]*@)?([^/?#]*)(\/[^?#]*)?/.exec(url) ?? [];
  const withPorts = hosts
    .toLowerCase()
    .split(',')
    .map((host) => (/:\d+$/.test(host) ? host : `${host}:5432`));
  return `${withPorts.join(',')}${database}`;
}
