import { Type, type Static } from '@sinclair/typebox';
import type { AgentTool } from './agent-tool.js';
import { createBashTool } from './bash-tool.js';
import { CliToolDeclarationSchema, parseCliToolDeclaration } from './cli-tool-declaration.js';
import { createCliTool } from './cli-tool.js';
import { createFileTools } from './file-tools.js';
import { DEFAULT_DENIED_PATHS } from './path-guard.js';
import type { HostEnvironment } from './tool-environment.js';
import { ToolRegistry, type ToolPolicy } from './tool-registry.js';

/** The `tools` section of the config file, for the config schema to embed. */
export const ToolsConfigSchema = Type.Object(
  {
    bash: Type.Optional(
      Type.Object(
        {
          enabled: Type.Boolean({ default: false }),
          timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
          max_output_bytes: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    allowed_paths: Type.Optional(Type.Array(Type.String())),
    denied_paths: Type.Optional(Type.Array(Type.String())),
    cli: Type.Optional(Type.Array(CliToolDeclarationSchema)),
    /** `true`, or the names of the admin tools this agent may run without approval. */
    allow_admin_tools: Type.Optional(Type.Union([Type.Boolean(), Type.Array(Type.String())])),
  },
  { additionalProperties: false },
);

export type ToolsConfig = Static<typeof ToolsConfigSchema>;

/**
 * The tools of one agent: the file tools, `bash` only when enabled, the declared CLI tools,
 * with the admin policy applied. With no config: the three file tools.
 */
export function defaultTools(config: ToolsConfig = {}, hostEnv: HostEnvironment = process.env): AgentTool[] {
  const registry = new ToolRegistry(
    createFileTools({ allowedPaths: config.allowed_paths ?? [], deniedPaths: [...DEFAULT_DENIED_PATHS, ...(config.denied_paths ?? [])] }),
  );
  if (config.bash?.enabled) {
    registry.register(
      createBashTool({
        hostEnv,
        ...(config.bash.timeout_seconds === undefined ? {} : { timeoutMs: config.bash.timeout_seconds * 1000 }),
        ...(config.bash.max_output_bytes === undefined ? {} : { maxOutputBytes: config.bash.max_output_bytes }),
      }),
    );
  }
  for (const declaration of config.cli ?? []) registry.register(createCliTool(parseCliToolDeclaration(declaration), hostEnv));
  const policy: ToolPolicy = { allowAdminTools: config.allow_admin_tools ?? false };
  return registry.toolsFor(policy);
}
