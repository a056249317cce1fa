import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { BotError } from '../../core/errors.js';
import { ToolError, type AgentTool } from './agent-tool.js';
import { TEMPLATE_VARIABLE, type CliParameter, type CliToolDeclaration } from './cli-tool-declaration.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TOOL_TIMEOUT_MS } from './output-limit.js';
import type { CommandRunner } from './command-runner.js';
import { describeProcessResult } from './run-process.js';
import { buildToolEnvironment, type HostEnvironment } from './tool-environment.js';

export { CliToolDeclarationSchema, parseCliToolDeclaration, type CliToolDeclaration, type CliParameter } from './cli-tool-declaration.js';

export interface CliToolOptions {
  /** The sandbox (`sandboxedRunner`), or `unconfinedRunner` when the declaration says `sandbox: off`. */
  runner: CommandRunner;
  timeoutMs?: number;
  maxOutputBytes?: number;
}

type ArgumentValue = string | number | boolean;

function parameterSchema(parameter: CliParameter): TSchema {
  const annotations = parameter.description === undefined ? {} : { description: parameter.description };
  if (parameter.enum) {
    const values = parameter.enum.map((value) => (parameter.type === 'string' ? String(value) : Number(value)));
    return Type.Union(values.map((value) => Type.Literal(value)), annotations);
  }
  switch (parameter.type) {
    case 'string':
      return Type.String({
        ...annotations,
        ...(parameter.pattern === undefined ? {} : { pattern: parameter.pattern }),
        ...(parameter.maxLength === undefined ? {} : { maxLength: parameter.maxLength }),
      });
    case 'number':
      return Type.Number(annotations);
    case 'integer':
      return Type.Integer(annotations);
    case 'boolean':
      return Type.Boolean(annotations);
  }
}

export function cliParametersSchema(declaration: CliToolDeclaration): TObject {
  const properties: Record<string, TSchema> = {};
  for (const [name, parameter] of Object.entries(declaration.parameters ?? {})) {
    properties[name] = parameter.optional ? Type.Optional(parameterSchema(parameter)) : parameterSchema(parameter);
  }
  return Type.Object(properties, { additionalProperties: false });
}

/** `${VAR}` in a declared env value pulls that host variable; a missing one is a config error. */
export function resolveDeclaredEnvironment(declaration: CliToolDeclaration, hostEnv: HostEnvironment): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [key, template] of Object.entries(declaration.env ?? {})) {
    resolved[key] = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, variable: string) => {
      const value = hostEnv[variable];
      if (value === undefined) throw new BotError('config', `tool ${declaration.name}: env.${key} needs the host variable ${variable}, which is not set`);
      return value;
    });
  }
  return resolved;
}

/** Each template fills exactly one argv element: substituted in place, never split or re-parsed. */
function fillTemplate(template: string, values: Record<string, ArgumentValue | undefined>): string {
  return template.replace(TEMPLATE_VARIABLE, (_match, variable: string) => String(values[variable] ?? ''));
}

export function buildCliArguments(declaration: CliToolDeclaration, values: Record<string, ArgumentValue | undefined>): string[] {
  const argv = (declaration.args ?? []).map((template) => fillTemplate(template, values));
  for (const [parameter, templates] of Object.entries(declaration.optional_args ?? {})) {
    const value = values[parameter];
    if (value === undefined || value === false) continue;
    argv.push(...templates.map((template) => fillTemplate(template, values)));
  }
  return argv;
}

/** An `AgentTool` from a config declaration, run with `spawn(cmd, args, { shell: false })`. */
export function createCliTool(declaration: CliToolDeclaration, hostEnv: HostEnvironment, options: CliToolOptions): AgentTool {
  const env = buildToolEnvironment(hostEnv, resolveDeclaredEnvironment(declaration, hostEnv));
  const timeoutMs = declaration.timeout_seconds === undefined ? (options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS) : declaration.timeout_seconds * 1000;
  const maxOutputBytes = declaration.max_output_bytes ?? options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return {
    name: declaration.name,
    description: declaration.description,
    category: declaration.category,
    privileged: true,
    label: `Running \`${declaration.name}\`…`,
    parameters: cliParametersSchema(declaration),
    async execute(args, context) {
      const result = await options.runner.run({
        command: declaration.cmd,
        args: buildCliArguments(declaration, args as Record<string, ArgumentValue | undefined>),
        cwd: context.workspace,
        env,
        timeoutMs,
        maxOutputBytes,
        signal: context.signal,
      });
      const { ok, text } = describeProcessResult(result, timeoutMs);
      if (!ok) throw new ToolError(text);
      return text;
    },
  };
}
