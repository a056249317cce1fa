import { sql } from 'drizzle-orm';
import { rowsOf, type StoreDatabase } from '../store/database.js';
import type { Memory } from './memory-repository.js';

/**
 * Embeddings of memories in pgvector, beside the migrated tables: the `vector` extension is optional, so its table
 * is made at start-up only where `CREATE EXTENSION vector` works (see detectVectorStore). Rows go with their
 * memory (foreign key, cascade).
 */
export class VectorStore {
  constructor(private readonly db: StoreDatabase) {}

  async save(memoryId: number, model: string, embedding: number[]): Promise<void> {
    const literal = toVectorLiteral(embedding);
    await this.db.execute(sql`
      insert into memory_embeddings (memory_id, model, embedding) values (${memoryId}, ${model}, ${literal}::vector)
      on conflict (memory_id) do update set model = excluded.model, embedding = excluded.embedding`);
  }

  /** The scope's memories nearest to `embedding` by cosine distance, closest first (same model only). */
  async nearest(scope: string, model: string, embedding: number[], limit: number, maxDistance = 0.6): Promise<Memory[]> {
    const literal = toVectorLiteral(embedding);
    const rows = rowsOf<{ id: string | number; text: string; created_at: string | Date }>(
      await this.db.execute(sql`
        select m.id, m.text, m.created_at from memory_embeddings e join memories m on m.id = e.memory_id
        where m.scope = ${scope} and e.model = ${model} and (e.embedding <=> ${literal}::vector) <= ${maxDistance}
        order by e.embedding <=> ${literal}::vector limit ${limit}`),
    );
    return rows.map((row) => ({ id: Number(row.id), text: row.text, createdAt: new Date(row.created_at) }));
  }
}

export function toVectorLiteral(embedding: number[]): string {
  if (embedding.length === 0 || embedding.some((value) => !Number.isFinite(value))) throw new Error('not an embedding');
  return `[${embedding.join(',')}]`;
}

/** pgvector when the database has it (or lets this role create it); undefined otherwise, and the caller says so once. */
export async function detectVectorStore(db: StoreDatabase): Promise<{ store: VectorStore } | { reason: string }> {
  try {
    await db.execute(sql`create extension if not exists vector`);
    await db.execute(sql`
      create table if not exists memory_embeddings (
        memory_id bigint primary key references memories(id) on delete cascade,
        model text not null,
        embedding vector not null
      )`);
    return { store: new VectorStore(db) };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}
