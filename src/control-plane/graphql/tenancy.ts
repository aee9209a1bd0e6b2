/**
 * The caller's own tenant on `/graphql`: the tenant and its children (a liable parent sees the
 * tenants it answers for), workspaces (create, list, rename), and the balance and spend.
 * Workspace changes are Tenant spec changes through the resources interface, in force on the
 * gateway when the mutation returns.
 */
import { spendCounterName } from '../../billing/accountant.ts';
import { SLUG_PATTERN } from '../../resources/validate.ts';
import type { TenantRecord, WorkspaceEntry } from '../../stores/records.ts';
import { awaitTenant, changeTenantSpec } from '../tenant-writes.ts';
import { audited } from './audit.ts';
import {
  asValidation,
  type ControlPlaneServices,
  notFound,
  type ResolverContext,
  requirePermission,
  validationError,
} from './context.ts';

export const tenancyTypeDefs = /* GraphQL */ `
  type Workspace {
    id: String!
    name: String!
  }

  "A prepaid tenant has a balance; a postpaid one (no balance record) is billed afterwards."
  type Balance {
    tenantId: String!
    "prepaid or postpaid"
    mode: String!
    "USD micros left (prepaid only)."
    remainingMicros: Float
    "USD micros spent on the platform's keys, all time."
    spentMicros: Float!
    currency: String!
  }

  type Tenant {
    id: String!
    slug: String!
    name: String!
    "The liable parent's id, for a child tenant."
    parentId: String
    region: String
    billingMode: String!
    suspended: Boolean!
    createdAt: String
    workspaces: [Workspace!]!
    "The tenants this one is the liable parent of."
    children: [Tenant!]!
    "Needs billing:read."
    balance: Balance!
  }

  type Query {
    "The caller's tenant."
    tenant: Tenant!
    workspaces: [Workspace!]!
    "Needs billing:read."
    balance: Balance!
  }

  type Mutation {
    "Adds a workspace (id from the name when not given); in force on the gateway when it returns."
    createWorkspace(name: String!, id: String): Workspace!
    renameWorkspace(id: String!, name: String!): Workspace!
  }
`;

const MAX_WORKSPACE_NAME = 256;
const MAX_WORKSPACES = 256;

function presentTenant(tenant: TenantRecord) {
  return {
    id: tenant.id,
    slug: tenant.slug ?? tenant.id,
    name: tenant.displayName,
    parentId: tenant.parentId ?? null,
    region: tenant.region ?? null,
    billingMode: tenant.billingMode,
    suspended: tenant.suspended === true,
    createdAt: tenant.createdAt ?? null,
    workspaces: tenant.workspaces,
  };
}

/** The tenant's balance and spend. */
export async function readBalance(services: ControlPlaneServices, tenantId: string) {
  const [remaining, spent] = await Promise.all([
    services.runtime.getBalance(tenantId),
    services.runtime.getCounter(spendCounterName(tenantId)),
  ]);
  return {
    tenantId,
    mode: remaining === undefined ? 'postpaid' : 'prepaid',
    remainingMicros: remaining ?? null,
    spentMicros: spent,
    currency: 'USD',
  };
}

function checkWorkspaceName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_WORKSPACE_NAME) {
    throw validationError(`name must be a non-empty string of at most ${MAX_WORKSPACE_NAME} characters`);
  }
  return trimmed;
}

/** A workspace id from a name: lowercase letters and digits joined by `-`. */
function workspaceIdFromName(name: string): string {
  const id = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return id === '' ? 'workspace' : id;
}

async function createWorkspace(
  _parent: unknown,
  args: { name: string; id?: string | null },
  context: ResolverContext,
): Promise<WorkspaceEntry> {
  requirePermission(context, 'workspaces:manage');
  const name = checkWorkspaceName(args.name);
  const id = args.id ?? workspaceIdFromName(name);
  if (!SLUG_PATTERN.test(id)) {
    throw validationError('id must be 1-63 of a-z, 0-9 and -, starting with a letter or digit');
  }
  const written = await changeTenantSpec(context.services, context.tenantId, (spec) => {
    if (spec.workspaces.some((workspace) => workspace.id === id)) {
      throw validationError(`workspace '${id}' already exists`);
    }
    if (spec.workspaces.length >= MAX_WORKSPACES) {
      throw validationError(`a tenant has at most ${MAX_WORKSPACES} workspaces`);
    }
    return { ...spec, workspaces: [...spec.workspaces, { id, name }] };
  }).catch(asValidation);
  if (written === undefined) throw notFound('your tenant no longer exists');
  await awaitTenant(context.services, context.tenantId, (tenant) =>
    tenant.workspaces.some((workspace) => workspace.id === id),
  );
  return { id, name };
}

async function renameWorkspace(
  _parent: unknown,
  args: { id: string; name: string },
  context: ResolverContext,
): Promise<WorkspaceEntry> {
  requirePermission(context, 'workspaces:manage');
  const name = checkWorkspaceName(args.name);
  const written = await changeTenantSpec(context.services, context.tenantId, (spec) => {
    const workspace = spec.workspaces.find((entry) => entry.id === args.id);
    if (workspace === undefined) throw notFound(`no workspace '${args.id}' in your tenant`);
    if (workspace.name === name) return undefined;
    return {
      ...spec,
      workspaces: spec.workspaces.map((entry) => (entry.id === args.id ? { id: entry.id, name } : entry)),
    };
  }).catch(asValidation);
  if (written === undefined) throw notFound('your tenant no longer exists');
  await awaitTenant(context.services, context.tenantId, (tenant) =>
    tenant.workspaces.some((workspace) => workspace.id === args.id && workspace.name === name),
  );
  return { id: args.id, name };
}

function ownTenant(context: ResolverContext): TenantRecord {
  const tenant = context.services.view.tenant(context.tenantId);
  if (tenant === undefined) throw notFound('your tenant no longer exists');
  return tenant;
}

export const tenancyResolvers = {
  Query: {
    tenant: (_parent: unknown, _args: unknown, context: ResolverContext) => presentTenant(ownTenant(context)),
    workspaces: (_parent: unknown, _args: unknown, context: ResolverContext) => ownTenant(context).workspaces,
    balance: (_parent: unknown, _args: unknown, context: ResolverContext) => {
      requirePermission(context, 'billing:read');
      return readBalance(context.services, context.tenantId);
    },
  },
  Tenant: {
    children: (parent: { id: string }, _args: unknown, context: ResolverContext) =>
      context.services.view.childrenOf(parent.id).map(presentTenant),
    balance: (parent: { id: string }, _args: unknown, context: ResolverContext) => {
      requirePermission(context, 'billing:read');
      return readBalance(context.services, parent.id);
    },
  },
  Mutation: {
    createWorkspace: audited(
      'createWorkspace',
      (args: { name: string; id?: string | null }) => args.id ?? args.name,
      createWorkspace,
    ),
    renameWorkspace: audited('renameWorkspace', (args: { id: string }) => args.id, renameWorkspace),
  },
};
