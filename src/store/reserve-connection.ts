import type { ReservedSql, Sql } from 'postgres';

/**
 * `sql.reserve()` that does not hang without `fetch_types`: postgres.js 3.4.9 never resolves a reserve that has to
 * open a new connection then (porsager/postgres#751, #1219). A statement first leaves an idle connection, which the
 * reserve takes. Only for a pool nothing else uses meanwhile: start-up checks and migrations.
 */
export async function reserveConnection(client: Sql): Promise<ReservedSql> {
  await client.unsafe('select 1');
  return client.reserve();
}
