// Run as its own process (`node pglite-initdb.js <directory>`): creates an embedded database cluster, applies the
// migrations and exits. initdb is the most memory-hungry thing PGlite ever does (its WebAssembly heap grows past
// 400 MB) and the first migrations grow it further; done in the service process, that memory would stay resident
// for the process's life. The service then opens a database that is ready and finds nothing to migrate.
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { migrationConfig } from './migrate.js';

const directory = process.argv[2];
if (!directory) {
  process.stderr.write('usage: pglite-initdb <directory>\n');
  process.exit(2);
}
const client = await PGlite.create(directory);
await migrate(drizzle({ client }), migrationConfig());
await client.close();
