// Run as its own process (`node pglite-initdb.js <directory>`): creates an embedded database cluster and exits.
// initdb is the most memory-hungry thing PGlite ever does (its WebAssembly heap grows past 400 MB); done in the
// service process, that memory would stay resident for the process's life.
import { PGlite } from '@electric-sql/pglite';

const directory = process.argv[2];
if (!directory) {
  process.stderr.write('usage: pglite-initdb <directory>\n');
  process.exit(2);
}
const client = await PGlite.create(directory);
await client.close();
