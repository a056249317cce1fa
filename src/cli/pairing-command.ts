import { PairingService } from '../access/index.js';
import type { AppConfig } from '../config/app-config.js';
import { BotError } from '../core/errors.js';
import { acquireDataDirLock, DataDirInUseError, describeHolder, type DataDirLock } from '../lifecycle/data-dir-lock.js';
import { databaseOptionsOf, migrateDatabase, openDatabase } from '../store/index.js';

export const PAIRING_USAGE = `usage: chatbot pairing list | chatbot pairing approve <CODE>`;

/** `cli pairing list` and `cli pairing approve <CODE>`: the operator's side of DM_POLICY=pairing. Returns the exit code. */
export async function runPairingCommand(config: AppConfig, args: string[], out: (line: string) => void): Promise<number> {
  const [action, code] = args;
  if (action !== 'list' && !(action === 'approve' && code)) throw new BotError('config', PAIRING_USAGE);
  const lock = config.databaseUrl ? undefined : lockEmbeddedDatabase(config.dataDir);
  try {
    return await onDatabase(config, action, code, out);
  } finally {
    lock?.release();
  }
}

async function onDatabase(config: AppConfig, action: string, code: string | undefined, out: (line: string) => void): Promise<number> {
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
function lockEmbeddedDatabase(dataDir: string): DataDirLock {
  try {
    return acquireDataDirLock(dataDir, 'pairing');
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    const console = error.holder.url ? `; approve codes in the console (${error.holder.url}/admin/pairings, with ADMIN_USER/ADMIN_PASSWORD set)` : '';
    throw new DataDirInUseError(
      dataDir,
      error.holder,
      `the service is running on the embedded database under ${dataDir}: ${describeHolder(error.holder)}; the CLI cannot open it meanwhile${console}, or stop the service first (or run it on PostgreSQL, DATABASE_URL, which the CLI can share)`,
    );
  }
}
