import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PairingService } from './access/index.js';
import type { AppConfig } from './config/app-config.js';
import { BotError } from './core/errors.js';
import { databaseOptionsOf, migrateDatabase, openDatabase } from './store/index.js';

/** Written under DATA_DIR while a service uses the embedded database; other processes (the CLI) must not open it then. */
export const EMBEDDED_DATABASE_OWNER_FILE = 'service.pid';

export const PAIRING_USAGE = `usage: chatbot pairing list | chatbot pairing approve <CODE>`;

/** `cli pairing list` and `cli pairing approve <CODE>`: the operator's side of DM_POLICY=pairing. Returns the exit code. */
export async function runPairingCommand(config: AppConfig, args: string[], out: (line: string) => void): Promise<number> {
  const [action, code] = args;
  if (action !== 'list' && !(action === 'approve' && code)) throw new BotError('config', PAIRING_USAGE);
  if (!config.databaseUrl) refuseWhileServiceHoldsEmbeddedDatabase(config.dataDir);
  const database = await openDatabase(databaseOptionsOf(config));
  try {
    await migrateDatabase(database);
    const pairing = new PairingService(database.db);
    if (action === 'list') {
      const pending = await pairing.pending();
      if (pending.length === 0) out('no pending pairing requests');
      for (const request of pending) {
        const minutes = Math.max(0, Math.ceil((request.expiresAt.getTime() - Date.now()) / 60_000));
        out(`${request.code}  ${request.channel}:${request.userId}  ${request.userName ?? '-'}  expires in ${minutes} min`);
      }
      return 0;
    }
    const result = await pairing.approve(code!);
    switch (result.kind) {
      case 'approved':
        out(`approved ${result.request.channel}:${result.request.userId}${result.request.userName ? ` (${result.request.userName})` : ''}: their messages are answered from now on`);
        return 0;
      case 'already-approved':
        out(`${result.request!.code} was already approved (${result.request!.channel}:${result.request!.userId})`);
        return 0;
      case 'expired':
        out(`${result.request!.code} expired; the user gets a new code by writing to the bot again`);
        return 1;
      case 'unknown':
        out(`no pairing request with code ${code}`);
        return 1;
    }
  } finally {
    await database.close();
  }
}

/** The embedded database (PGlite) is one process's: opening it beside a running service would corrupt it. */
function refuseWhileServiceHoldsEmbeddedDatabase(dataDir: string): void {
  const file = join(dataDir, EMBEDDED_DATABASE_OWNER_FILE);
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return;
  try {
    process.kill(pid, 0);
  } catch {
    return; // a stale file: that process is gone
  }
  throw new BotError(
    'config',
    `DATABASE_URL: the service (pid ${pid}) is using the embedded database under ${dataDir}; stop it first, or run it on PostgreSQL (DATABASE_URL) so the CLI can share it`,
  );
}
