/**
 * The control plane's own credentials on `/graphql`: personal access tokens (create with
 * permissions, list, revoke) and provisioning keys (a liable parent's keys for
 * `POST /provision/tenant`). Each is a labelled Secret holding its hash in the tenant's namespace;
 * the plaintext is returned once, at creation. A revoked one stops working when the call returns.
 */
import { PAT_PERMISSIONS, type PatPermission } from '../../auth/permissions.ts';
import type { PatRecord, ProvisioningKeyRecord } from '../../stores/records.ts';
import { deleteCredential, issueCredential } from '../tenant-writes.ts';
import { audited } from './audit.ts';
import { forbidden, notFound, type ResolverContext, requirePermission, validationError } from './context.ts';

export const accessTypeDefs = /* GraphQL */ `
  type Pat {
    id: String!
    name: String
    permissions: [String!]!
    "tt_pat_…abcd"
    keyHint: String
    createdAt: String!
  }

  type CreatedPat {
    id: String!
    name: String
    permissions: [String!]!
    "The token itself: shown once, never again."
    token: String!
  }

  type ProvisioningKey {
    id: String!
    name: String
    keyHint: String
    createdAt: String!
  }

  type CreatedProvisioningKey {
    id: String!
    name: String
    "The key itself (tt_prov_...): shown once, never again."
    key: String!
  }

  type Query {
    "Needs pats:manage."
    pats: [Pat!]!
    "Needs provisioning:manage."
    provisioningKeys: [ProvisioningKey!]!
  }

  type Mutation {
    "A PAT with some of the caller's own permissions (never more)."
    createPat(permissions: [String!]!, name: String): CreatedPat!
    revokePat(id: String!): Boolean!
    "A provisioning key for POST /provision/tenant; only a top-level tenant (a liable parent) has them."
    createProvisioningKey(name: String): CreatedProvisioningKey!
    revokeProvisioningKey(id: String!): Boolean!
  }
`;

const MAX_NAME = 100;

function checkName(name: string | null | undefined): string | undefined {
  if (name === null || name === undefined) return undefined;
  const trimmed = name.trim();
  const printable = [...trimmed].every((character) => (character.codePointAt(0) ?? 0) >= 0x20);
  if (trimmed === '' || trimmed.length > MAX_NAME || !printable) {
    throw validationError(`name must be 1-${MAX_NAME} printable characters`);
  }
  return trimmed;
}

function checkPermissions(context: ResolverContext, permissions: readonly string[]): PatPermission[] {
  if (permissions.length === 0) throw validationError('permissions must contain at least one permission');
  for (const permission of permissions) {
    if (!(PAT_PERMISSIONS as readonly string[]).includes(permission)) {
      throw validationError(`unknown permission '${permission}': allowed are ${PAT_PERMISSIONS.join(', ')}`);
    }
    if (!context.pat.permissions.includes(permission)) {
      throw forbidden(`a PAT cannot grant '${permission}', which it does not hold itself`);
    }
  }
  return [...new Set(permissions)] as PatPermission[];
}

function presentPat(pat: PatRecord) {
  return {
    id: pat.id,
    name: pat.name ?? null,
    permissions: pat.permissions,
    keyHint: pat.keyHint ?? null,
    createdAt: pat.createdAt,
  };
}

function presentProvisioningKey(key: ProvisioningKeyRecord) {
  return { id: key.id, name: key.name ?? null, keyHint: key.keyHint ?? null, createdAt: key.createdAt };
}

async function createPat(
  _parent: unknown,
  args: { permissions: string[]; name?: string | null },
  context: ResolverContext,
) {
  requirePermission(context, 'pats:manage');
  const permissions = checkPermissions(context, args.permissions);
  const name = checkName(args.name);
  const pat = await issueCredential(context.services, context.tenantId, 'pat', {
    permissions: permissions.join(','),
    admin: 'false',
    ...(name === undefined ? {} : { name }),
  });
  return { id: pat.id, name: name ?? null, permissions, token: pat.plaintext };
}

async function revokePat(_parent: unknown, args: { id: string }, context: ResolverContext) {
  requirePermission(context, 'pats:manage');
  const pat = context.services.view.list('pat').find((record) => record.id === args.id);
  if (pat === undefined || pat.tenantId !== context.tenantId)
    throw notFound(`no PAT '${args.id}' in your tenant`);
  // An admin PAT is the platform's: revoke it where it was made (its Secret), not here.
  if (pat.admin) throw forbidden('a platform-admin PAT cannot be revoked through /graphql');
  await deleteCredential(context.services, context.tenantId, 'pat', pat);
  await context.services.awaitConfig('pat', pat.id, (record) => record === undefined);
  return true;
}

async function createProvisioningKey(
  _parent: unknown,
  args: { name?: string | null },
  context: ResolverContext,
) {
  requirePermission(context, 'provisioning:manage');
  const tenant = context.services.view.tenant(context.tenantId);
  if (tenant?.parentId !== undefined) {
    throw forbidden('only a top-level tenant (a liable parent) may create provisioning keys');
  }
  const name = checkName(args.name);
  const key = await issueCredential(
    context.services,
    context.tenantId,
    'provisioning-key',
    name === undefined ? {} : { name },
  );
  return { id: key.id, name: name ?? null, key: key.plaintext };
}

async function revokeProvisioningKey(_parent: unknown, args: { id: string }, context: ResolverContext) {
  requirePermission(context, 'provisioning:manage');
  const key = context.services.view.list('provisioningKey').find((record) => record.id === args.id);
  if (key === undefined || key.tenantId !== context.tenantId) {
    throw notFound(`no provisioning key '${args.id}' in your tenant`);
  }
  await deleteCredential(context.services, context.tenantId, 'provisioning-key', key);
  await context.services.awaitConfig('provisioningKey', key.id, (record) => record === undefined);
  return true;
}

export const accessResolvers = {
  Query: {
    pats: (_parent: unknown, _args: unknown, context: ResolverContext) => {
      requirePermission(context, 'pats:manage');
      return context.services.view
        .list('pat')
        .filter((pat) => pat.tenantId === context.tenantId)
        .map(presentPat);
    },
    provisioningKeys: (_parent: unknown, _args: unknown, context: ResolverContext) => {
      requirePermission(context, 'provisioning:manage');
      return context.services.view
        .list('provisioningKey')
        .filter((key) => key.tenantId === context.tenantId)
        .map(presentProvisioningKey);
    },
  },
  Mutation: {
    createPat: audited('createPat', (args: { name?: string | null }) => args.name ?? '', createPat),
    revokePat: audited('revokePat', (args: { id: string }) => args.id, revokePat),
    createProvisioningKey: audited(
      'createProvisioningKey',
      (args: { name?: string | null }) => args.name ?? '',
      createProvisioningKey,
    ),
    revokeProvisioningKey: audited(
      'revokeProvisioningKey',
      (args: { id: string }) => args.id,
      revokeProvisioningKey,
    ),
  },
};
