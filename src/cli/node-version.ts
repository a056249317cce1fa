/**
 * The oldest Node.js major the service runs on (package.json `engines.node`; a test keeps the two equal).
 * This file imports nothing, so that it runs, and refuses an old Node in one line, before any module that
 * would fail to load there.
 */
export const MINIMUM_NODE_MAJOR = 22;

/** Undefined when `version` (as in `process.versions.node`) is supported; otherwise the line to print. */
export function unsupportedNodeMessage(version: string, executable: string): string | undefined {
  const major = Number(version.split('.')[0]);
  if (Number.isInteger(major) && major >= MINIMUM_NODE_MAJOR) return undefined;
  return (
    `chatbot-service needs Node.js ${MINIMUM_NODE_MAJOR} or later, and this is Node.js ${version} (${executable}): ` +
    'install Node.js 24 LTS (https://nodejs.org/en/download, or `nvm install 24`, or `fnm install 24`) and run it with that node'
  );
}
