import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory holding `bot.config.yaml` with `text`: the `cwd` a config test loads from. */
export function inDirectory(text: string, name = 'config-test'): string {
  const directory = mkdtempSync(join(tmpdir(), `${name}-`));
  writeFileSync(join(directory, 'bot.config.yaml'), text);
  return directory;
}

/** The message of the configuration error `load` throws; fails the test when it throws none. */
export function errorOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a configuration error');
}
