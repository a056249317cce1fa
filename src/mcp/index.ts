export { McpManager, DEFAULT_MCP_STARTUP_WAIT_MS, type McpAgent, type McpToolSource, type McpServerStatus, type UnavailableServer } from './mcp-manager.js';
export { McpConnection, type ConnectionState, type McpConnectionOptions, type McpServerState } from './mcp-connection.js';
export { unavailableServersLine } from './unavailable-servers.js';
export {
  McpServersSchema,
  McpServerSchema,
  checkMcpServers,
  parseMcpServers,
  DEFAULT_MCP_TIMEOUT_MS,
  type McpServerConfig,
  type McpStdioServer,
  type McpHttpServer,
} from './mcp-config.js';
export { mapCallToolResult, type MappedToolResult, type BinaryContent } from './map-call-tool-result.js';
export { mcpDoctorChecks } from './mcp-doctor.js';
