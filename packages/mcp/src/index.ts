/**
 * @inference-gateway/mcp: `igw-mcp`, a Model Context Protocol tool server for the inference
 * gateway's control plane, built on the admin SDK. The executable (bin.ts) serves it on stdio;
 * `createGatewayMcpServer` gives the `McpServer` itself, for any transport.
 */
export { redact, registerTools } from './register-tools.ts';
export {
  createGatewayMcpServer,
  type GatewayMcpServerOptions,
  gatewayToolDefinitions,
} from './server.ts';
export { type McpSettings, readSettings, SettingsError, serverOptionsFromSettings } from './settings.ts';
export {
  CREATES,
  defineTool,
  INTERNAL_ERROR,
  READS,
  REMOVES,
  REPLACES,
  type ToolContext,
  type ToolDefinition,
  type ToolError,
  ToolErrorSchema,
  ToolInputError,
  type ToolOutcome,
  VALIDATION_ERROR,
} from './tool.ts';
export { MCP_SERVER_VERSION } from './version.ts';
