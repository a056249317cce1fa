import type { Sql } from 'postgres';
import { reserveConnection } from './reserve-connection.js';

/**
 * - `pinned`: one client connection kept one server session across transactions (a direct connection, or a
 *   pooler in session mode): session-level state (SET, session advisory locks, named prepared statements) holds.
 * - `shared`: one client connection was served by two server sessions: a transaction (or statement) pooler is in
 *   between, and session-level state does not survive a transaction.
 * - `unknown`: the probe could not tell (the pooler had no second server free within the wait).
 */
export type SessionPinning = 'pinned' | 'shared' | 'unknown';

const PROBE_WAIT_MS = 1_000;

/**
 * Asks which server session answers one client connection before and while another connection holds a
 * transaction open. A pooler in transaction mode hands an idle client's next statement whichever server is
 * free, and the open transaction holds the one it used last, so the backend pid changes. Directly on
 * PostgreSQL the pid never changes. The converse does not hold: an idle pooler can hand back the same server
 * by chance, so `pinned` is evidence, not proof (why DATABASE_POOLER is a setting, not a guess).
 *
 * Simple-protocol statements only (`unsafe` without parameters): the probe itself must not depend on named
 * prepared statements, which are what it is about.
 */
export async function probeSessionPinning(client: Sql, waitMs = PROBE_WAIT_MS): Promise<SessionPinning> {
  const backendPid = async (query: Promise<Array<Record<string, unknown>>>) => Number((await query)[0]?.pid);
  const reserved = await reserveConnection(client);
  try {
    const before = await backendPid(reserved.unsafe('select pg_backend_pid() as pid'));
    let during: Promise<number> | undefined;
    let answeredInTime = false;
    await client.begin(async (transaction) => {
      await transaction.unsafe('select pg_backend_pid() as pid');
      during = backendPid(reserved.unsafe('select pg_backend_pid() as pid'));
      // a pooler with a single server makes this wait for the transaction: commit and ask again after
      answeredInTime = await Promise.race([during.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), waitMs).unref())]);
    });
    const after = await during!;
    if (after !== before) return 'shared';
    return answeredInTime ? 'pinned' : 'unknown';
  } finally {
    reserved.release();
  }
}
