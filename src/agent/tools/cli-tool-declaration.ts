import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { BotError } from '../../core/errors.js';
import { SandboxSwitchSchema } from './sandbox-policy.js';

const IDENTIFIER = '^[A-Za-z_][A-Za-z0-9_]*$';

export const CliParameterSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('string'), Type.Literal('number'), Type.Literal('integer'), Type.Literal('boolean')]),
    description: Type.Optional(Type.String()),
    enum: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]), { minItems: 1 })),
    pattern: Type.Optional(Type.String()),
    maxLength: Type.Optional(Type.Integer({ minimum: 1 })),
    optional: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** One CLI tool as declared in the config file (seed 001 §6.3). */
export const CliToolDeclarationSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' }),
    description: Type.String({ minLength: 1 }),
    category: Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]),
    cmd: Type.String({ minLength: 1 }),
    args: Type.Optional(Type.Array(Type.String())),
    optional_args: Type.Optional(Type.Record(Type.String({ pattern: IDENTIFIER }), Type.Array(Type.String()))),
    parameters: Type.Optional(Type.Record(Type.String({ pattern: IDENTIFIER }), CliParameterSchema)),
    /** Values may pull host variables explicitly with `${VAR}`. */
    env: Type.Optional(Type.Record(Type.String({ pattern: IDENTIFIER }), Type.String())),
    timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    max_output_bytes: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Default on: the command runs in the bubblewrap sandbox (see README). */
    sandbox: Type.Optional(SandboxSwitchSchema),
    /** In the sandbox: keep the host's network (default false: loopback only). */
    network: Type.Optional(Type.Boolean()),
    /** In the sandbox: host paths the command may read (config files, a binary outside /usr). */
    read_only_paths: Type.Optional(Type.Array(Type.String({ pattern: '^(/|~/)' }))),
  },
  { additionalProperties: false },
);

export type CliParameter = Static<typeof CliParameterSchema>;
export type CliToolDeclaration = Static<typeof CliToolDeclarationSchema>;

export const TEMPLATE_VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export function templateVariables(template: string): string[] {
  return [...template.matchAll(TEMPLATE_VARIABLE)].map((match) => match[1] ?? '');
}

function fail(name: string, detail: string): never {
  throw new BotError('config', `tool ${name}: ${detail}`);
}

function checkReferences(declaration: CliToolDeclaration): void {
  const parameters = declaration.parameters ?? {};
  for (const variable of (declaration.args ?? []).flatMap(templateVariables)) {
    const parameter = parameters[variable];
    if (!parameter) fail(declaration.name, `args use {{${variable}}} but no such parameter is declared`);
    if (parameter.optional) fail(declaration.name, `args use the optional parameter {{${variable}}}; move it to optional_args`);
  }
  for (const [key, templates] of Object.entries(declaration.optional_args ?? {})) {
    if (!parameters[key]) fail(declaration.name, `optional_args.${key}: no such parameter is declared`);
    for (const variable of templates.flatMap(templateVariables)) {
      if (!parameters[variable]) fail(declaration.name, `optional_args.${key} uses {{${variable}}} but no such parameter is declared`);
    }
  }
  for (const [key, parameter] of Object.entries(parameters)) {
    if (parameter.pattern === undefined) continue;
    try {
      new RegExp(parameter.pattern, 'u');
    } catch {
      fail(declaration.name, `parameters.${key}.pattern is not a valid regular expression`);
    }
  }
}

/** Validates one declaration from the config file; an invalid one names the bad field. */
export function parseCliToolDeclaration(value: unknown): CliToolDeclaration {
  const firstError = Value.Errors(CliToolDeclarationSchema, value).First();
  if (firstError) {
    const name = typeof value === 'object' && value !== null && 'name' in value ? String(value.name) : '(unnamed)';
    fail(name, `${firstError.path || '/'}: ${firstError.message}`);
  }
  const declaration = value as CliToolDeclaration;
  checkReferences(declaration);
  return declaration;
}
