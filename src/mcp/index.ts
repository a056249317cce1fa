export { McpManager, type McpAgent, type McpToolSource } from './mcp-manager.js';
export { McpConnection, type ConnectionState, type McpConnectionOptions } from './mcp-connection.js';
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
