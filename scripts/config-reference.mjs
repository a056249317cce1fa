// `npm run docs:config`: writes docs/configuration.md from the TypeBox schemas (src/config/config-reference.ts,
// run from the tsc build). test/docs/configuration-reference.test.ts fails when the committed page differs.
import { mkdirSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const { renderConfigurationReference } = await import(new URL('dist/src/config/config-reference.js', root).href);
mkdirSync(new URL('docs/', root), { recursive: true });
writeFileSync(new URL('docs/configuration.md', root), renderConfigurationReference());
process.stdout.write('docs/configuration.md written\n');
