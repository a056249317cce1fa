/** The newest modification time of the files under `directory` whose name ends with one of `suffixes`. */
export function newestFile(directory: string, suffixes: string[]): number;
/** Whether `output` is missing, or older than a file under `folders` whose name ends with one of `suffixes`, or than one of `files`. */
export function isStale(output: string, folders: string[], suffixes: string[], files: string[]): boolean;
/** Which of the two builds under `root`/dist are stale: the tsc output (dist/src/…) and the esbuild bundle (dist/bundle/cli.js). */
export function staleBuilds(root: string): { tsc: boolean; bundle: boolean };
/** Records that tsc has just run over every source (it leaves its build-info file untouched when no output changed). */
export function markTscBuilt(root: string): void;
