/**
 * `createGatewayMcpServer`: an `McpServer` whose tools are the control plane's admin operations,
 * through the admin SDK. Which tools exist follows the credentials it is given: the tenant's tools
 * always (with the PAT of `admin`) and the anonymous organisation sign-up; `provision_tenant` with a
 * provisioning key; the platform admin's tools with a `PlatformAdminClient`.
 */
import type { AdminClient, PlatformAdminClient } from '@inference-gateway/admin';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerTools } from './register-tools.ts';
import type { ToolDefinition } from './tool.ts';
import { cacheTools } from './tools/cache.ts';
import { connectionTools } from './tools/connections.ts';
import { createOrganizationTool, provisionTenantTool } from './tools/organizations.ts';
import { platformTools } from './tools/platform.ts';
import { routeTools } from './tools/routes.ts';
import { tenantTools } from './tools/tenant.ts';
import { tokenTools } from './tools/tokens.ts';
import { MCP_SERVER_VERSION } from './version.ts';

/** What the server works with. */
export interface GatewayMcpServerOptions {
  /** The tenant's control plane, with a PAT; also makes the anonymous `create_organization` call. */
  admin: AdminClient;
  /** With it, the platform admin's tools (list_organizations, get_organization, suspend_tenant, resume_tenant, top_up_balance). */
  platformAdmin?: PlatformAdminClient | undefined;
  /** A provisioning key (`tt_prov_...`); with it, `provision_tenant`. */
  provisioningKey?: string | undefined;
  /**
   * Values no tool result may ever contain (the server's own credentials: the PATs). The
   * provisioning key is always one; the secrets a call sends are always added.
   */
  secrets?: readonly string[];
}

const INSTRUCTIONS = [
  "Tools for an inference gateway's control plane: Connections (the tenant's own provider keys, routed as @<slug>/<model>), ephemeral tokens, the response cache and its policies, model routes (one model name served by several targets, with fallbacks and retries), workspaces, workspace API keys, the balance, and organisation sign-up.",
  'Amounts are USD micros (1 USD = 1000000) unless an argument says USD.',
  'Secrets you send (API keys, AWS and Google credentials) are write-only and never returned; new secrets (a minted token, a created API key, an owner PAT) are returned once by the call that makes them.',
  'A failed call returns isError with "<CODE>: <message>"; the code is the service\'s (VALIDATION_ERROR, FORBIDDEN, NOT_FOUND, CONFLICT, ...).',
].join(' ');

/** The tool definitions for these options, in the order `tools/list` shows them. */
export function gatewayToolDefinitions(options: GatewayMcpServerOptions): ToolDefinition[] {
  return [
    ...connectionTools(options.admin),
    ...tokenTools(options.admin),
    ...cacheTools(options.admin),
    ...routeTools(options.admin),
    ...tenantTools(options.admin),
    createOrganizationTool(options.admin),
    ...(options.provisioningKey === undefined
      ? []
      : [provisionTenantTool(options.admin, options.provisioningKey)]),
    ...(options.platformAdmin === undefined ? [] : platformTools(options.platformAdmin)),
  ];
}

/**
 * An MCP server with the gateway's tools; connect it to a transport (stdio, or in memory in tests).
 * Add tools of your own with `registerTools(server, [defineTool({...})])`, not `server.registerTool`.
 */
export function createGatewayMcpServer(options: GatewayMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'igw-mcp', title: 'Inference gateway control plane', version: MCP_SERVER_VERSION },
    { instructions: INSTRUCTIONS },
  );
  const secrets = [
    ...(options.secrets ?? []),
    ...(options.provisioningKey === undefined ? [] : [options.provisioningKey]),
  ];
  registerTools(server, gatewayToolDefinitions(options), secrets);
  return server;
}
