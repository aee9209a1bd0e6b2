/**
 * An igw-mcp server and an MCP SDK client connected in memory, the server's admin clients pointed
 * at a fake control plane: the way unit tests reach the tools.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  createGatewayMcpServer,
  type McpSettings,
  registerTools,
  serverOptionsFromSettings,
  type ToolDefinition,
} from '../src/index.ts';
import { type FakeControlPlane, fakeControlPlane } from './fake-control-plane.ts';

export const CONTROL_URL = 'http://control.test:8081';
export const PAT = 'tt_pat_unit-test-tenant-secret-0123';
export const ADMIN_PAT = 'tt_pat_unit-test-admin-secret-4567';
export const PROVISIONING_KEY = 'tt_prov_unit-test-secret-89ab';

export interface Connected {
  fake: FakeControlPlane;
  server: McpServer;
  client: Client;
  /** Calls a tool; the result as the client received it. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connect(
  options: { admin?: boolean; provisioning?: boolean; extraTools?: ToolDefinition[] } = {},
): Promise<Connected> {
  const fake = fakeControlPlane();
  const settings: McpSettings = {
    url: CONTROL_URL,
    token: PAT,
    adminToken: options.admin ? ADMIN_PAT : undefined,
    provisioningKey: options.provisioning ? PROVISIONING_KEY : undefined,
    timeoutMs: undefined,
  };
  const server = createGatewayMcpServer(serverOptionsFromSettings(settings, fake.fetch));
  if (options.extraTools !== undefined) registerTools(server, options.extraTools);
  const client = new Client({ name: 'igw-mcp-unit-test', version: '0.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    fake,
    server,
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}
