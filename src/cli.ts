#!/usr/bin/env node
// The entry point does nothing but check the Node version: every other module loads after the check.
import { unsupportedNodeMessage } from './cli/node-version.js';

const refusal = unsupportedNodeMessage(process.versions.node, process.execPath);
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
await import('./cli/main.js');
