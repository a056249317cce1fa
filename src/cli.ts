#!/usr/bin/env node
// The entry point does nothing but check the Node version and turn on the compile cache: every other module loads after.
import module from 'node:module';
import { unsupportedNodeMessage } from './cli/node-version.js';

const refusal = unsupportedNodeMessage(process.versions.node, process.execPath);
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
// V8's compiled code of the modules, kept on disk (in NODE_COMPILE_CACHE, else the OS's temporary folder): a
// restart reads it back instead of compiling the bundle again. A folder it cannot write only turns the cache off.
module.enableCompileCache?.();
await import('./cli/main.js');
