import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The programs of the machine the tests drive for real (README "Tests"), with the Debian/Ubuntu package that
 * brings each. `npm test` starts Redis and PostgreSQL itself when they are installed (scripts/test-services.mjs);
 * these are checked here so that a missing one is named in one line, not found out from a stack trace.
 */
export interface SystemPackage {
  /** What the tests run. */
  program: string;
  /** `apt-get install <package>`. */
  debianPackage: string;
  neededBy: string;
  present(): boolean;
}

/** Debian's Chromium; `CHROMIUM_PATH` names another binary (e.g. Ubuntu's `/snap/bin/chromium`). */
export const chromiumPath = (): string => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Debian's `pgbouncer` puts the program under /usr/sbin, often not on a user's PATH; `PGBOUNCER_PATH` names another binary. */
export const pgbouncerPath = (): string => process.env.PGBOUNCER_PATH || (isExecutable('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer');

export const SYSTEM_PACKAGES: readonly SystemPackage[] = [
  { program: 'chromium', debianPackage: 'chromium', neededBy: 'the console’s browser test', present: () => isExecutable(chromiumPath()) },
  { program: 'bwrap', debianPackage: 'bubblewrap', neededBy: 'the tool sandbox tests', present: () => onPath('bwrap') },
  { program: 'redis-server', debianPackage: 'redis-server', neededBy: 'Redis, and the fault suite’s own Redis', present: () => onPath('redis-server') },
  { program: 'prlimit', debianPackage: 'util-linux', neededBy: 'the tool sandbox’s limits', present: () => onPath('prlimit') },
  {
    program: 'pgbouncer',
    debianPackage: 'pgbouncer',
    neededBy: 'the PostgreSQL-behind-a-pooler tests',
    present: () => (pgbouncerPath().includes('/') ? isExecutable(pgbouncerPath()) : onPath(pgbouncerPath())),
  },
];

/** The packages (all, or the named programs) missing on this machine. */
export function missingSystemPackages(programs?: string[]): SystemPackage[] {
  return SYSTEM_PACKAGES.filter((entry) => (programs === undefined || programs.includes(entry.program)) && !entry.present());
}

/** One line: what is missing, for which tests, and the command that installs it. */
export function missingPackagesLine(missing: SystemPackage[]): string {
  const what = missing.map((entry) => `${entry.program} (${entry.neededBy})`).join(', ');
  return `The tests need ${what}, not installed here: sudo apt-get install -y ${missing.map((entry) => entry.debianPackage).join(' ')} (Debian/Ubuntu; README "Tests" lists every package)`;
}

/** Fails the calling test file with that one line (no stack trace) when a program it drives is missing. */
export function requireSystemPackages(...programs: string[]): void {
  const missing = missingSystemPackages(programs);
  if (missing.length === 0) return;
  const error = new Error(missingPackagesLine(missing));
  error.stack = `Error: ${error.message}`;
  throw error;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((folder) => folder !== '' && isExecutable(join(folder, program)));
}
