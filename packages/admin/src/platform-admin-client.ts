/**
 * `PlatformAdminClient`: the platform admin's API (`POST /admin/graphql`, a platform-admin PAT):
 * every tenant's summary (with its `referral`), the tenant tree, suspension and balance top-ups.
 * Each admin mutation is written to the target tenant's audit log with the admin PAT as actor.
 */
import * as Documents from './admin-documents.ts';
import { GraphQLEndpointClient } from './graphql-endpoint-client.ts';
import type { CallOptions, ConnectionOptions } from './transport.ts';
import type { OrganizationSummary, PlatformBalance, TenantTreeNode } from './types.ts';

/** How a `PlatformAdminClient` reaches the control plane. */
export interface PlatformAdminClientOptions extends ConnectionOptions {
  /** A platform-admin PAT (standalone's bootstrap `adminPat`); any other credential gets 401/403. */
  token: string;
}

function requireAdminToken(token: unknown): string {
  if (typeof token !== 'string' || token.trim() === '') {
    throw new TypeError('PlatformAdminClient needs a platform-admin token');
  }
  return token;
}

/**
 * A typed client of `/admin/graphql`.
 *
 * ```ts
 * const platform = new PlatformAdminClient({ url: 'http://127.0.0.1:8081', token: process.env.IGW_ADMIN_PAT });
 * const org = await platform.getOrganization('acme-labs'); // org?.referral
 * ```
 */
export class PlatformAdminClient extends GraphQLEndpointClient {
  constructor(options: PlatformAdminClientOptions) {
    super(options, requireAdminToken(options.token), '/admin/graphql');
  }

  /**
   * Tenants by creation time: `topLevelOnly` for organisations only, `limit` 1-500 (default 100),
   * `after` a tenant id to page on from.
   */
  listOrganizations(
    options: { topLevelOnly?: boolean; limit?: number; after?: string } = {},
    call?: CallOptions,
  ): Promise<OrganizationSummary[]> {
    return this.field(Documents.AdminOrganizationsDocument, options, call);
  }

  /** One organisation (or child tenant) by its slug, with its `referral`; null when there is none. */
  getOrganization(slug: string, call?: CallOptions): Promise<OrganizationSummary | null> {
    return this.field(Documents.AdminOrganizationDocument, { slug }, call);
  }

  /** One tenant by its id; null when there is none. */
  getTenant(id: string, call?: CallOptions): Promise<OrganizationSummary | null> {
    return this.field(Documents.AdminTenantDocument, { id }, call);
  }

  /** The top-level tenants, each with its children (the whole tree: children cannot have children). */
  getTenantTree(call?: CallOptions): Promise<TenantTreeNode[]> {
    return this.field(Documents.AdminTenantTreeDocument, {}, call);
  }

  /**
   * Suspends a tenant: from the next request its keys, tokens and PATs, and those of its children,
   * get 403 (`TENANT_SUSPENDED` on GraphQL). `reason` (at most 500 characters) goes to its audit log.
   */
  suspendTenant(input: { id: string; reason?: string }, call?: CallOptions): Promise<OrganizationSummary> {
    return this.field(Documents.AdminSuspendTenantDocument, input, call);
  }

  /** Lifts a suspension. */
  resumeTenant(id: string, call?: CallOptions): Promise<OrganizationSummary> {
    return this.field(Documents.AdminResumeTenantDocument, { id }, call);
  }

  /**
   * Adds to a tenant's prepaid balance (a postpaid tenant becomes prepaid): `amountMicros` a whole
   * number of USD micros, 1 to 10^12 (`usdToMicros('20')`).
   */
  topUpBalance(
    input: { tenantId: string; amountMicros: number },
    call?: CallOptions,
  ): Promise<PlatformBalance> {
    return this.field(Documents.AdminTopUpBalanceDocument, input, call);
  }
}
