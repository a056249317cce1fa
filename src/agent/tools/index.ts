export { toolLabel, labelExcerpt, codeLabel, MAX_LABEL_LENGTH } from './tool-label.js';
export { defineTool, ToolError, type AgentTool, type ToolCategory, type ToolContext } from './agent-tool.js';
export { ToolRegistry, applyToolPolicy, isToolAllowed, matchesToolPattern, needsApproval, DEFAULT_TOOL_POLICY, type ToolPolicy } from './tool-registry.js';
export { ensureWorkspace, sanitizeUserId, workspaceFor, workspacePathFor } from './workspace.js';
export { resolveToolPath, DEFAULT_DENIED_PATHS, type FileAccessPolicy } from './path-guard.js';
export { createFileTools, type FileToolOptions } from './file-tools.js';
export { createSendFileTool, SEND_FILE_MAX_BYTES } from './send-file-tool.js';
export { createBashTool, type BashToolOptions } from './bash-tool.js';
export { findBlockedCommand, BLOCKED_COMMANDS } from './command-blocklist.js';
export {
  createCliTool,
  cliParametersSchema,
  buildCliArguments,
  CliToolDeclarationSchema,
  parseCliToolDeclaration,
  type CliToolDeclaration,
  type CliParameter,
  type CliToolOptions,
} from './cli-tool.js';
export { buildToolEnvironment, ALLOWED_ENV_KEYS, type HostEnvironment } from './tool-environment.js';
export { runProcess, type ProcessRequest, type ProcessResult } from './run-process.js';
export { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TOOL_TIMEOUT_MS } from './output-limit.js';
export { defaultTools, commandToolSettings, ToolsConfigSchema, type ToolsConfig, type CommandToolSetting } from './tools-config.js';
export { sandboxedRunner, unconfinedRunner, type CommandRunner } from './command-runner.js';
export { detectSandbox, describeSandboxHost, SANDBOX_INSTALL_HINT, type SandboxHost, type SandboxAvailability } from './sandbox-host.js';
export { DEFAULT_SANDBOX_LIMITS, isSandboxOn, type SandboxPolicy, type SandboxLimits } from './sandbox-policy.js';
export { createSpawnAgentTool, isChildTool, SPAWN_AGENT_TOOL, TOOLS_DENIED_TO_CHILDREN, type SpawnAgentOptions, type SubagentSetup } from './spawn-agent.js';
