import { Kind, OptionalKind, type TSchema } from '@sinclair/typebox';
import { EnvironmentSchema } from './environment-schema.js';
import { ConfigFileSchema } from './file-schema.js';

/**
 * docs/configuration.md, rendered from the TypeBox schemas of the environment and the config file: every variable
 * and every key with its type, default and meaning (the schemas' `description` and `default`). `npm run docs:config`
 * writes it; test/docs/configuration-reference.test.ts fails when the committed page differs from this.
 */
export interface ReferenceRow {
  /** `PORT`, or a config-file path such as `agents[].model` or `channels.telegram.groups.<chatId>.queueMode`. */
  name: string;
  type: string;
  default: string;
  description: string | undefined;
  required: boolean;
}

type Schema = TSchema & {
  type?: string;
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  patternProperties?: Record<string, Schema>;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  description?: string;
  default?: unknown;
};

function code(value: unknown): string {
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

/** A short human name of a schema's type: `integer ≥ 1`, `` `a` or `b` ``, `list of string`, `map of object`. */
export function typeName(schema: Schema): string {
  if (schema.const !== undefined) return code(schema.const);
  if (schema.anyOf) return schema.anyOf.map((member) => typeName(member)).join(' or ');
  switch (schema[Kind]) {
    case 'Integer':
    case 'Number': {
      const bounds = [
        schema.minimum !== undefined ? `≥ ${schema.minimum}` : undefined,
        schema.exclusiveMinimum !== undefined ? `> ${schema.exclusiveMinimum}` : undefined,
        schema.maximum !== undefined ? `≤ ${schema.maximum}` : undefined,
      ].filter(Boolean);
      return [schema[Kind] === 'Integer' ? 'integer' : 'number', ...bounds].join(' ');
    }
    case 'Array':
      return `list of ${schema.items ? typeName(schema.items) : 'any'}`;
    case 'Record': {
      const value = Object.values(schema.patternProperties ?? {})[0];
      return `map of ${value ? typeName(value) : 'any'}`;
    }
    case 'Object':
      return 'object';
    default:
      return String(schema.type ?? schema[Kind]).toLowerCase();
  }
}

function row(name: string, schema: Schema, required: boolean): ReferenceRow {
  return {
    name,
    type: typeName(schema),
    default: schema.default === undefined ? '' : code(schema.default),
    description: schema.description,
    required,
  };
}

/** The objects a key's value may be (itself, a list's items, a map's values, a union's object members), with the path suffix each adds. */
function nested(schema: Schema): Array<{ suffix: string; object: Schema }> {
  if (schema[Kind] === 'Object') return [{ suffix: '', object: schema }];
  if (schema[Kind] === 'Array' && schema.items) return nested(schema.items).map(({ suffix, object }) => ({ suffix: `[]${suffix}`, object }));
  if (schema[Kind] === 'Record') {
    const value = Object.values(schema.patternProperties ?? {})[0];
    return value ? nested(value).map(({ suffix, object }) => ({ suffix: `.<name>${suffix}`, object })) : [];
  }
  if (schema.anyOf) return schema.anyOf.flatMap((member) => nested(member));
  return [];
}

/** Every key of an object schema, depth first, in schema order. */
export function fileRows(schema: Schema, prefix = ''): ReferenceRow[] {
  const rows: ReferenceRow[] = [];
  const required = new Set(schema.required ?? []);
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const name = `${prefix}${key}`;
    rows.push(row(name, child, required.has(key) && child[OptionalKind] === undefined));
    for (const { suffix, object } of nested(child)) rows.push(...fileRows(object, `${name}${suffix}.`));
  }
  return rows;
}

/** Every environment variable, in schema order. */
export function environmentRows(): ReferenceRow[] {
  return Object.entries(EnvironmentSchema.properties as Record<string, Schema>).map(([name, schema]) => row(name, schema, false));
}

/** Every config-file key. */
export function configFileRows(): ReferenceRow[] {
  return fileRows(ConfigFileSchema as Schema);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

function table(rows: ReferenceRow[], heading: string): string[] {
  return [
    `| ${heading} | type | default | meaning |`,
    '| --- | --- | --- | --- |',
    ...rows.map(
      (entry) =>
        `| \`${entry.name}\` | ${cell(entry.type)}${entry.required ? ', required' : ''} | ${cell(entry.default)} | ${cell(entry.description ?? '')} |`,
    ),
  ];
}

/** The whole page, ending with a newline. */
export function renderConfigurationReference(): string {
  return [
    '# Configuration reference',
    '',
    'With this page you can look up every setting the service reads: each environment variable and each key of the',
    'config file, with its type, its default and what it does. How the two combine (the variables override the file',
    'for the default agent and the first account of each platform) is explained in',
    '[Features: several agents and bot accounts](features.md#several-agents-and-bot-accounts-the-config-file).',
    '',
    '<!-- Generated by `npm run docs:config` from src/config/environment-schema.ts and src/config/file-schema.ts;',
    '     do not edit: change the schemas\' `description`s and run it again. test/docs/configuration-reference.test.ts',
    '     fails when this page and the schemas disagree. -->',
    '',
    'Variables may also be put in a `.env` file in the working directory. An invalid value stops start-up with one line',
    'naming the variable (or the file and the path of the bad field). An empty default cell means the setting is unset',
    'by default; the meaning says what happens then.',
    '',
    '## Environment variables',
    '',
    ...table(environmentRows(), 'variable'),
    '',
    '## Config file keys',
    '',
    'The file is YAML (`bot.config.yaml` in the working directory, or the file `CONFIG_FILE` names). Unknown keys are',
    'errors. Any string may contain `${ENV_VAR}` (an unset or empty variable is an error naming the field; `$${` is a',
    'literal `${`), except under an agent\'s `tools`, whose CLI declarations keep their own `${VAR}`s for run time.',
    '`[]` marks the items of a list, `<name>` the keys of a map (a group\'s chat id, an MCP server\'s name, a CLI tool\'s',
    'environment variable).',
    '',
    ...table(configFileRows(), 'key'),
    '',
  ].join('\n');
}
