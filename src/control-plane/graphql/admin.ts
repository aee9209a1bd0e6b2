/**
 * The platform-admin API (`POST /admin/graphql`, admin PATs only): organisation summaries (with
 * the referral, which only this API returns), lookup by slug, the tenant tree, suspension, and
 * top-ups (what a billing page's backend calls once a payment is through). Every mutation is
 * audit-logged in the target tenant's log with the admin PAT as actor.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import type { TenantRecord } from '../../stores/records.ts';
import { recordAudit } from '../audit-record.ts';
import { awaitTenant, changeTenantSpec } from '../tenant-writes.ts';
import { asValidation, forbidden, notFound, type ResolverContext, validationError } from './context.ts';
import { readBalance } from './tenancy.ts';

const adminTypeDefs = /* GraphQL */ `
  type Balance {
    tenantId: String!
    mode: String!
    remainingMicros: Float
    spentMicros: Float!
    currency: String!
  }

  "An organisation (a top-level tenant) or a child tenant."
  type OrganizationSummary {
    id: String!
    name: String!
    slug: String!
    "Set once at creation; null when none was given."
    referral: String
    createdAt: String
    parentId: String
    parent: OrganizationSummary
    children: [OrganizationSummary!]!
    childCount: Int!
    region: String
    suspended: Boolean!
    "USD micros left; null for a postpaid tenant."
    balanceMicros: Float
    balance: Balance!
    workspaceCount: Int!
  }

  type Query {
    "Tenants by creation time; topLevelOnly: organisations only (no children)."
    organizations(topLevelOnly: Boolean = false, limit: Int = 100, after: String): [OrganizationSummary!]!
    organization(slug: String!): OrganizationSummary
    tenant(id: String!): OrganizationSummary
    "The top-level tenants; follow children for the whole tree."
    tenantTree: [OrganizationSummary!]!
  }

  type Mutation {
    "Refuses the tenant's (and its children's) keys, tokens and PATs with 403 from the next request."
    suspendTenant(id: String!, reason: String): OrganizationSummary!
    resumeTenant(id: String!): OrganizationSummary!
    "Adds to a tenant's prepaid balance (a postpaid tenant becomes prepaid)."
    topUpBalance(tenantId: String!, amountMicros: Float!): Balance!
  }
`;

const MAX_PAGE = 500;
const MAX_TOP_UP_MICROS = 1_000_000_000_000; // $1,000,000 in one top-up

function byCreation(left: TenantRecord, right: TenantRecord): number {
  const a = `${left.createdAt ?? ''}\u0000${left.id}`;
  const b = `${right.createdAt ?? ''}\u0000${right.id}`;
  return a < b ? -1 : a > b ? 1 : 0;
}

function summary(tenant: TenantRecord) {
  return {
    id: tenant.id,
    name: tenant.displayName,
    slug: tenant.slug ?? tenant.id,
    referral: tenant.referral ?? null,
    createdAt: tenant.createdAt ?? null,
    parentId: tenant.parentId ?? null,
    region: tenant.region ?? null,
    suspended: tenant.suspended === true,
    workspaceCount: tenant.workspaces.length,
  };
}

function tenantOrFail(context: ResolverContext, id: string): TenantRecord {
  const tenant = context.services.view.tenant(id);
  if (tenant === undefined) throw notFound(`no tenant '${id}'`);
  return tenant;
}

async function setSuspended(
  context: ResolverContext,
  id: string,
  suspended: boolean,
  reason?: string | null,
) {
  const tenant = tenantOrFail(context, id);
  if (suspended && tenant.id === context.tenantId) {
    throw forbidden('an admin cannot suspend the tenant its own PAT belongs to');
  }
  if (reason !== undefined && reason !== null && reason.length > 500) {
    throw validationError('reason must be at most 500 characters');
  }
  await changeTenantSpec(context.services, id, (spec) => {
    if ((spec.suspended === true) === suspended) return undefined;
    const { suspended: _previous, ...rest } = spec;
    return suspended ? { ...rest, suspended: true } : rest;
  }).catch(asValidation);
  const record = await awaitTenant(
    context.services,
    id,
    (current) => (current.suspended === true) === suspended,
  );
  await recordAudit(context.services, id, {
    actor: context.pat.id,
    operation: suspended ? 'suspendTenant' : 'resumeTenant',
    target: id,
    outcome: 'success',
    ...(reason ? { message: reason } : {}),
  });
  return summary(record);
}

async function topUpBalance(
  _parent: unknown,
  args: { tenantId: string; amountMicros: number },
  context: ResolverContext,
) {
  tenantOrFail(context, args.tenantId);
  const amount = args.amountMicros;
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > MAX_TOP_UP_MICROS) {
    throw validationError(`amountMicros must be a whole number of USD micros from 1 to ${MAX_TOP_UP_MICROS}`);
  }
  await context.services.runtime.adjustBalance(args.tenantId, amount);
  await recordAudit(context.services, args.tenantId, {
    actor: context.pat.id,
    operation: 'topUpBalance',
    target: args.tenantId,
    outcome: 'success',
    message: `${amount} micros`,
  });
  return readBalance(context.services, args.tenantId);
}

const adminResolvers = {
  Query: {
    organizations: (
      _parent: unknown,
      args: { topLevelOnly: boolean; limit: number; after?: string | null },
      context: ResolverContext,
    ) => {
      if (!Number.isInteger(args.limit) || args.limit < 1 || args.limit > MAX_PAGE) {
        throw validationError(`limit must be between 1 and ${MAX_PAGE}`);
      }
      const tenants = context.services.view
        .list('tenant')
        .filter((tenant) => !args.topLevelOnly || tenant.parentId === undefined)
        .sort(byCreation);
      const start = args.after ? tenants.findIndex((tenant) => tenant.id === args.after) + 1 : 0;
      return tenants.slice(start, start + args.limit).map(summary);
    },
    organization: (_parent: unknown, args: { slug: string }, context: ResolverContext) => {
      const tenant = context.services.view.tenantBySlug(args.slug);
      return tenant === undefined ? null : summary(tenant);
    },
    tenant: (_parent: unknown, args: { id: string }, context: ResolverContext) => {
      const tenant = context.services.view.tenant(args.id);
      return tenant === undefined ? null : summary(tenant);
    },
    tenantTree: (_parent: unknown, _args: unknown, context: ResolverContext) =>
      context.services.view
        .list('tenant')
        .filter(
          (tenant) =>
            tenant.parentId === undefined || context.services.view.tenant(tenant.parentId) === undefined,
        )
        .sort(byCreation)
        .map(summary),
  },
  OrganizationSummary: {
    parent: (parent: { parentId: string | null }, _args: unknown, context: ResolverContext) => {
      const tenant = parent.parentId === null ? undefined : context.services.view.tenant(parent.parentId);
      return tenant === undefined ? null : summary(tenant);
    },
    children: (parent: { id: string }, _args: unknown, context: ResolverContext) =>
      context.services.view.childrenOf(parent.id).sort(byCreation).map(summary),
    childCount: (parent: { id: string }, _args: unknown, context: ResolverContext) =>
      context.services.view.childrenOf(parent.id).length,
    balanceMicros: async (parent: { id: string }, _args: unknown, context: ResolverContext) =>
      (await context.services.runtime.getBalance(parent.id)) ?? null,
    balance: (parent: { id: string }, _args: unknown, context: ResolverContext) =>
      readBalance(context.services, parent.id),
  },
  Mutation: {
    suspendTenant: (
      _parent: unknown,
      args: { id: string; reason?: string | null },
      context: ResolverContext,
    ) => setSuspended(context, args.id, true, args.reason),
    resumeTenant: (_parent: unknown, args: { id: string }, context: ResolverContext) =>
      setSuspended(context, args.id, false),
    topUpBalance,
  },
};

export function buildAdminSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: adminTypeDefs, resolvers: adminResolvers });
}
