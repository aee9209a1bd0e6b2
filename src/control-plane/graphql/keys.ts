/**
 * Workspace API keys on the control plane. Keys are Secrets (hash only) in the tenant's namespace,
 * written through the resources interface; a created key works on the gateway when the mutation
 * returns, and a revoked one (with every token minted from it) stops working at once.
 */
import { revokeTokensOfKey } from '../../auth/key-revocation.ts';
import { API_KEY_GRANTS, type ApiKeyGrant } from '../../stores/records.ts';
import { deleteCredential, issueCredential } from '../tenant-writes.ts';
import { audited } from './audit.ts';
import {
  notFound,
  type ResolverContext,
  requirePermission,
  requireWorkspace,
  validationError,
} from './context.ts';

export const keyTypeDefs = /* GraphQL */ `
  type ApiKey {
    id: String!
    workspaceId: String!
    grants: [String!]!
    "tt_sk_…abcd (absent for keys made without one, e.g. from YAML)"
    keyHint: String
    createdAt: String!
  }

  type CreatedApiKey {
    id: String!
    workspaceId: String!
    grants: [String!]!
    "The key itself: shown once, never again."
    key: String!
  }

  type Query {
    apiKeys(workspaceId: String): [ApiKey!]!
  }

  type Mutation {
    "Creates a workspace API key (grants default to chat:write and embed)."
    createApiKey(workspaceId: String!, grants: [String!]): CreatedApiKey!
    "Revokes a workspace key and every ephemeral token minted from it."
    revokeApiKey(id: String!): Boolean!
  }
`;

function checkGrants(grants: string[] | null | undefined): ApiKeyGrant[] {
  if (grants === null || grants === undefined) return [...API_KEY_GRANTS];
  if (grants.length === 0) throw validationError('grants must contain at least one grant');
  for (const grant of grants) {
    if (!(API_KEY_GRANTS as readonly string[]).includes(grant)) {
      throw validationError(`unknown grant '${grant}': allowed are ${API_KEY_GRANTS.join(', ')}`);
    }
  }
  return [...new Set(grants)] as ApiKeyGrant[];
}

async function createApiKey(
  _parent: unknown,
  args: { workspaceId: string; grants?: string[] | null },
  context: ResolverContext,
) {
  requirePermission(context, 'keys:manage');
  requireWorkspace(context, args.workspaceId);
  const grants = checkGrants(args.grants);
  const credential = await issueCredential(context.services, context.tenantId, 'api-key', {
    workspace: args.workspaceId,
    grants: grants.join(','),
  });
  return { id: credential.id, workspaceId: args.workspaceId, grants, key: credential.plaintext };
}

async function revokeApiKey(_parent: unknown, args: { id: string }, context: ResolverContext) {
  requirePermission(context, 'keys:manage');
  const key = context.services.view.apiKey(args.id);
  if (key === undefined || key.tenantId !== context.tenantId)
    throw notFound(`no key '${args.id}' in your tenant`);
  // The denylist entry makes the key's tokens fail on every gateway at once, before the key's
  // record is gone from every process's view.
  await revokeTokensOfKey(context.services.runtime, key.id);
  await deleteCredential(context.services, context.tenantId, 'api-key', key);
  await context.services.awaitConfig('apiKey', key.id, (record) => record === undefined);
  return true;
}

export const keyResolvers = {
  Query: {
    apiKeys: (_parent: unknown, args: { workspaceId?: string | null }, context: ResolverContext) => {
      requirePermission(context, 'keys:manage');
      return context.services.view
        .list('apiKey')
        .filter(
          (key) =>
            key.tenantId === context.tenantId && (!args.workspaceId || key.workspaceId === args.workspaceId),
        )
        .map((key) => ({
          id: key.id,
          workspaceId: key.workspaceId,
          grants: key.grants,
          keyHint: key.keyHint ?? null,
          createdAt: key.createdAt,
        }));
    },
  },
  Mutation: {
    createApiKey: audited('createApiKey', (args: { workspaceId: string }) => args.workspaceId, createApiKey),
    revokeApiKey: audited('revokeApiKey', (args: { id: string }) => args.id, revokeApiKey),
  },
};
