import { eq } from 'drizzle-orm';
import type { StoreDatabase } from '../database.js';
import { pairingRequests, type PairingRequestRow } from '../schema/index.js';

/** A pairing request by its (normalized) code, whatever its state: what the console reports after an action. */
export async function findPairingRequest(db: StoreDatabase, code: string): Promise<PairingRequestRow | undefined> {
  const [row] = await db.select().from(pairingRequests).where(eq(pairingRequests.code, code)).limit(1);
  return row;
}
