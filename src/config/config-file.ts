import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { parseCliToolDeclaration } from '../agent/tools/cli-tool-declaration.js';
import { BotError } from '../core/errors.js';
import { ConfigFileSchema, type ConfigFile } from './file-schema.js';

export const DEFAULT_CONFIG_FILE = 'bot.config.yaml';

export interface LoadedConfigFile {
  /** How messages name the file: as CONFIG_FILE gave it, or `bot.config.yaml`. */
  shown: string;
  path: string;
  content: ConfigFile;
}

/** An error about one field of the config file, on one line: `<file>: <json pointer>: <what is wrong>`. */
export function fileError(shown: string, pointer: string, message: string): BotError {
  return new BotError('config', `${shown}: ${pointer || '/'}: ${message}`);
}

/** CONFIG_FILE (must exist), else `bot.config.yaml` in the working directory when there is one. */
export function locateConfigFile(configFile: string | undefined, cwd: string): { path: string; shown: string } | undefined {
  if (configFile) {
    const path = isAbsolute(configFile) ? configFile : resolve(cwd, configFile);
    if (!existsSync(path)) throw new BotError('config', `CONFIG_FILE: ${configFile} does not exist`);
    return { path, shown: configFile };
  }
  const path = resolve(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(path) ? { path, shown: DEFAULT_CONFIG_FILE } : undefined;
}

/** Parses, substitutes `${ENV_VAR}` references, validates against the schema; every failure is one line naming the field. */
export function readConfigFile(location: { path: string; shown: string }, env: NodeJS.ProcessEnv): LoadedConfigFile {
  const { shown } = location;
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(location.path, 'utf8')) ?? {};
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const firstLine = error.message.split('\n')[0]!.replace(/:$/, '');
      throw new BotError('config', `${shown}: invalid YAML: ${firstLine}`);
    }
    throw new BotError('config', `${shown}: cannot be read: ${(error as Error).message}`);
  }
  const substituted = substituteEnvironment(raw, '', shown, env);
  const firstError = Value.Errors(ConfigFileSchema, substituted).First();
  if (firstError) throw fileError(shown, firstError.path, describeError(firstError));
  const content = substituted as ConfigFile;
  checkToolDeclarations(content, shown);
  return { ...location, content };
}

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** Tool declarations keep their own `${VAR}`s: a CLI tool's env is read from the host when it runs. */
const VERBATIM = /^\/agents\/\d+\/tools(\/|$)/;

/** Replaces `${NAME}` in every string (`$${` is a literal `${`); an unset or empty variable is an error naming the field. */
function substituteEnvironment(value: unknown, pointer: string, shown: string, env: NodeJS.ProcessEnv): unknown {
  if (VERBATIM.test(pointer)) return value;
  if (typeof value === 'string') {
    return value.replace(REFERENCE, (match, name: string | undefined) => {
      if (name === undefined) return '${';
      const resolved = env[name];
      if (resolved === undefined || resolved === '') throw fileError(shown, pointer, `environment variable ${name} is not set`);
      return resolved;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => substituteEnvironment(item, `${pointer}/${index}`, shown, env));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substituteEnvironment(item, `${pointer}/${escapePointer(key)}`, shown, env)]),
    );
  }
  return value;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** TypeBox says "Expected union value"; say which values are expected instead. */
export function describeError(error: ValueError): string {
  const members = (error.schema as { anyOf?: TSchema[] }).anyOf;
  if (!members) return error.message;
  const expected = members.map((member) => ('const' in member ? JSON.stringify(member.const) : String(member.type ?? 'value')));
  return `Expected one of: ${expected.join(', ')}`;
}

function checkToolDeclarations(content: ConfigFile, shown: string): void {
  for (const [agentIndex, agent] of (content.agents ?? []).entries()) {
    for (const [toolIndex, declaration] of (agent.tools?.cli ?? []).entries()) {
      try {
        parseCliToolDeclaration(declaration);
      } catch (error) {
        throw fileError(shown, `/agents/${agentIndex}/tools/cli/${toolIndex}`, (error as Error).message);
      }
    }
  }
}
