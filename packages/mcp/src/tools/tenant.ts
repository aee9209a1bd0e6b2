/**
 * The caller's tenant: workspaces, workspace API keys, balance (admin SDK `getTenant`,
 * `listWorkspaces`, `createWorkspace`, `listApiKeys`, `createApiKey`, `revokeApiKey`, `getBalance`;
 * permissions `workspaces:manage`, `keys:manage`, `billing:read`).
 */
import { type AdminClient, API_KEY_GRANTS, type Balance } from '@inference-gateway/admin';
import { z } from 'zod';
import { formatUsd } from '../amounts.ts';
import {
  ApiKeyRecord,
  BalanceRecord,
  CreatedApiKeyRecord,
  pick,
  TenantRecord,
  WorkspaceRecord,
} from '../records.ts';
import { CREATES, defineTool, READS, REMOVES, type ToolDefinition } from '../tool.ts';
import { workspaceIdArgument } from './arguments.ts';

function describeBalance(balance: Balance): string {
  const spent = `spent ${formatUsd(balance.spentMicros)}`;
  return balance.remainingMicros === null
    ? `postpaid, ${spent}`
    : `prepaid, ${formatUsd(balance.remainingMicros)} left, ${spent}`;
}

export function tenantTools(admin: AdminClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'get_tenant',
      title: 'Get the tenant',
      description:
        "The caller's tenant: id, slug, name, region, billing mode, whether it is suspended, its workspaces, and the child tenants it is the liable parent of. withBalances adds each one's balance (needs billing:read).",
      input: { withBalances: z.boolean().default(false).describe('Add balances (USD micros).') },
      output: { tenant: z.object(TenantRecord) },
      annotations: READS,
      async run({ withBalances }, { signal }) {
        const tenant = await admin.getTenant({ withBalances }, { signal });
        const workspaces = tenant.workspaces.map((workspace) => workspace.id).join(', ');
        const balance = tenant.balance === undefined ? '' : `; ${describeBalance(tenant.balance)}`;
        return {
          summary: `Tenant ${tenant.slug} (${tenant.name}${tenant.suspended ? ', suspended' : ''}): workspaces ${workspaces}; ${tenant.children.length} child tenant(s)${balance}.`,
          result: { tenant: pick(TenantRecord, tenant) },
        };
      },
    }),

    defineTool({
      name: 'list_workspaces',
      title: 'List workspaces',
      description:
        "The tenant's workspaces (id and name). Keys, Connections and cache policies can be limited to one.",
      input: {},
      output: { workspaces: z.array(z.object(WorkspaceRecord)) },
      annotations: READS,
      async run(_args, { signal }) {
        const workspaces = await admin.listWorkspaces({ signal });
        return {
          summary: `${workspaces.length} workspace(s): ${workspaces.map((entry) => `${entry.id} (${entry.name})`).join(', ')}.`,
          result: { workspaces: workspaces.map((workspace) => pick(WorkspaceRecord, workspace)) },
        };
      },
    }),

    defineTool({
      name: 'create_workspace',
      title: 'Create a workspace',
      description:
        'Adds a workspace to the tenant; its id is made from the name unless given (a taken id is CONFLICT). In force on the gateway when this returns; create_api_key gives it a key.',
      input: {
        name: z.string().describe('Display name.'),
        id: z
          .string()
          .optional()
          .describe('The id (lowercase letters, digits, -); default: made from the name.'),
      },
      output: { workspace: z.object(WorkspaceRecord) },
      annotations: CREATES,
      async run({ name, id }, { signal }) {
        const workspace = await admin.createWorkspace(
          { name, ...(id === undefined ? {} : { id }) },
          { signal },
        );
        return {
          summary: `Created workspace ${workspace.id} (${workspace.name}).`,
          result: { workspace: pick(WorkspaceRecord, workspace) },
        };
      },
    }),

    defineTool({
      name: 'list_api_keys',
      title: 'List workspace API keys',
      description:
        "The tenant's workspace API keys (of one workspace with workspaceId): id, workspace, grants, keyHint and creation time. Never the keys themselves.",
      input: { workspaceId: z.string().optional().describe('Only the keys of this workspace.') },
      output: { apiKeys: z.array(z.object(ApiKeyRecord)) },
      annotations: READS,
      async run({ workspaceId }, { signal }) {
        const keys = await admin.listApiKeys(workspaceId === undefined ? {} : { workspaceId }, { signal });
        const listed = keys.map(
          (key) => `${key.id} (${key.workspaceId}, ${key.grants.join(' ')}, ${key.keyHint ?? 'no hint'})`,
        );
        return {
          summary: keys.length === 0 ? 'No API keys.' : `${keys.length} API key(s): ${listed.join('; ')}.`,
          result: { apiKeys: keys.map((key) => pick(ApiKeyRecord, key)) },
        };
      },
    }),

    defineTool({
      name: 'create_api_key',
      title: 'Create a workspace API key',
      description:
        'Creates a workspace API key (tt_sk_...) for the gateway, with grants chat:write and/or embed (default both); it works when this returns. The result contains the key itself: a new secret, returned once and never again.',
      input: {
        workspaceId: workspaceIdArgument,
        grants: z.array(z.enum(API_KEY_GRANTS)).optional().describe('Default: ["chat:write", "embed"].'),
      },
      output: { apiKey: z.object(CreatedApiKeyRecord) },
      annotations: CREATES,
      async run({ workspaceId, grants }, { signal }) {
        const key = await admin.createApiKey(
          { workspaceId, ...(grants === undefined ? {} : { grants }) },
          { signal },
        );
        return {
          summary: `Created API key ${key.id} in workspace ${key.workspaceId} (${key.grants.join(', ')}). The key is in the result, shown this once.`,
          result: { apiKey: pick(CreatedApiKeyRecord, key) },
        };
      },
    }),

    defineTool({
      name: 'revoke_api_key',
      title: 'Revoke a workspace API key',
      description:
        'Revokes a workspace API key and every ephemeral token minted from it, from the next request.',
      input: { id: z.string().describe('The key id (key_...), from list_api_keys.') },
      output: { revoked: z.boolean() },
      annotations: REMOVES,
      async run({ id }, { signal }) {
        const revoked = await admin.revokeApiKey(id, { signal });
        return { summary: `Revoked API key ${id} and its ephemeral tokens.`, result: { revoked } };
      },
    }),

    defineTool({
      name: 'get_balance',
      title: 'Get the balance',
      description:
        "The tenant's balance: prepaid (remainingMicros left) or postpaid, and the platform spend so far, in USD micros (1 USD = 1000000). Needs billing:read.",
      input: {},
      output: { balance: z.object(BalanceRecord) },
      annotations: READS,
      async run(_args, { signal }) {
        const balance = await admin.getBalance({ signal });
        return {
          summary: `Balance of ${balance.tenantId}: ${describeBalance(balance)}.`,
          result: { balance: pick(BalanceRecord, balance) },
        };
      },
    }),
  ];
}
