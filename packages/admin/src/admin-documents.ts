/**
 * Every operation of the platform-admin API (`/admin/graphql`), one named document each (names
 * start with `Admin` so that they never meet a `/graphql` operation's). Types: src/generated/admin.ts.
 */
import type * as Operations from './generated/admin.ts';
import { defineDocument, defineFragment } from './typed-document.ts';

export const OrganizationSummaryFields = defineFragment(/* GraphQL */ `
  fragment OrganizationSummaryFields on OrganizationSummary {
    id name slug referral createdAt parentId childCount region suspended balanceMicros workspaceCount
    balance { tenantId mode remainingMicros spentMicros currency }
  }
`);

export const AdminOrganizationsDocument = defineDocument<
  Operations.AdminOrganizationsQuery,
  Operations.AdminOrganizationsQueryVariables
>(
  /* GraphQL */ `
  query AdminOrganizations($topLevelOnly: Boolean, $limit: Int, $after: String) {
    organizations(topLevelOnly: $topLevelOnly, limit: $limit, after: $after) { ...OrganizationSummaryFields }
  }`,
  OrganizationSummaryFields,
);

export const AdminOrganizationDocument = defineDocument<
  Operations.AdminOrganizationQuery,
  Operations.AdminOrganizationQueryVariables
>(
  /* GraphQL */ `
  query AdminOrganization($slug: String!) { organization(slug: $slug) { ...OrganizationSummaryFields } }`,
  OrganizationSummaryFields,
);

export const AdminTenantDocument = defineDocument<
  Operations.AdminTenantQuery,
  Operations.AdminTenantQueryVariables
>(
  /* GraphQL */ `
  query AdminTenant($id: String!) { tenant(id: $id) { ...OrganizationSummaryFields } }`,
  OrganizationSummaryFields,
);

/** Two levels are the whole tree: only top-level tenants are liable parents. */
export const AdminTenantTreeDocument = defineDocument<
  Operations.AdminTenantTreeQuery,
  Operations.AdminTenantTreeQueryVariables
>(
  /* GraphQL */ `
  query AdminTenantTree {
    tenantTree { ...OrganizationSummaryFields children { ...OrganizationSummaryFields } }
  }`,
  OrganizationSummaryFields,
);

export const AdminSuspendTenantDocument = defineDocument<
  Operations.AdminSuspendTenantMutation,
  Operations.AdminSuspendTenantMutationVariables
>(
  /* GraphQL */ `
  mutation AdminSuspendTenant($id: String!, $reason: String) {
    suspendTenant(id: $id, reason: $reason) { ...OrganizationSummaryFields }
  }`,
  OrganizationSummaryFields,
);

export const AdminResumeTenantDocument = defineDocument<
  Operations.AdminResumeTenantMutation,
  Operations.AdminResumeTenantMutationVariables
>(
  /* GraphQL */ `
  mutation AdminResumeTenant($id: String!) { resumeTenant(id: $id) { ...OrganizationSummaryFields } }`,
  OrganizationSummaryFields,
);

export const AdminTopUpBalanceDocument = defineDocument<
  Operations.AdminTopUpBalanceMutation,
  Operations.AdminTopUpBalanceMutationVariables
>(/* GraphQL */ `
  mutation AdminTopUpBalance($tenantId: String!, $amountMicros: Float!) {
    topUpBalance(tenantId: $tenantId, amountMicros: $amountMicros) {
      tenantId mode remainingMicros spentMicros currency
    }
  }`);

/** Every `/admin/graphql` document, in the order of the generated file. */
export const ADMIN_DOCUMENTS = [
  AdminOrganizationsDocument,
  AdminOrganizationDocument,
  AdminTenantDocument,
  AdminTenantTreeDocument,
  AdminSuspendTenantDocument,
  AdminResumeTenantDocument,
  AdminTopUpBalanceDocument,
] as const;
