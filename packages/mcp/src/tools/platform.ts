/**
 * The platform admin's tools (`/admin/graphql` through `PlatformAdminClient`, a platform-admin
 * PAT): every organisation with its referral, suspension and balance top-ups. Registered only when
 * the server has a platform-admin token.
 */
import type { OrganizationSummary, PlatformAdminClient } from '@inference-gateway/admin';
import { z } from 'zod';
import { formatUsd, microsAmount, microsOf, usdAmount } from '../amounts.ts';
import { BalanceRecord, OrganizationSummaryRecord, pick } from '../records.ts';
import { CREATES, defineTool, READS, REPLACES, type ToolDefinition, ToolInputError } from '../tool.ts';

const tenantIdArgument = z.string().describe("The tenant id (an organisation's id is its slug).");

function describeOrganization(organization: OrganizationSummary): string {
  const details = [
    organization.parentId === null ? 'organisation' : `child of ${organization.parentId}`,
    organization.referral === null ? 'no referral' : `referral ${organization.referral}`,
    ...(organization.suspended ? ['suspended'] : []),
  ];
  return `${organization.slug} (${organization.name}; ${details.join(', ')})`;
}

export function platformTools(platform: PlatformAdminClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'list_organizations',
      title: 'List organisations (platform admin)',
      description:
        'Platform admin: every tenant by creation time, with its referral tag, parent, children count, region, suspension, workspace count and balance. topLevelOnly for organisations only; page with limit (1-500, default 100) and after (the last id of the previous page).',
      input: {
        topLevelOnly: z.boolean().optional().describe('Only organisations (top-level tenants).'),
        limit: z.number().int().optional().describe('1-500, default 100.'),
        after: z.string().optional().describe('A tenant id: the page after it.'),
      },
      output: { organizations: z.array(z.object(OrganizationSummaryRecord)) },
      annotations: READS,
      async run(options, { signal }) {
        const organizations = await platform.listOrganizations(options, { signal });
        return {
          summary: `${organizations.length} tenant(s): ${organizations.map(describeOrganization).join('; ')}.`,
          result: { organizations: organizations.map((entry) => pick(OrganizationSummaryRecord, entry)) },
        };
      },
    }),

    defineTool({
      name: 'get_organization',
      title: 'Get an organisation (platform admin)',
      description:
        'Platform admin: one organisation (or child tenant) by its slug, with its referral tag, balance and suspension; organization is null when there is none.',
      input: { slug: z.string().describe("The organisation's slug.") },
      output: { organization: z.object(OrganizationSummaryRecord).nullable() },
      annotations: READS,
      async run({ slug }, { signal }) {
        const organization = await platform.getOrganization(slug, { signal });
        return {
          summary:
            organization === null
              ? `No organisation with the slug ${slug}.`
              : `Organisation ${describeOrganization(organization)}.`,
          result: {
            organization: organization === null ? null : pick(OrganizationSummaryRecord, organization),
          },
        };
      },
    }),

    defineTool({
      name: 'suspend_tenant',
      title: 'Suspend a tenant (platform admin)',
      description:
        "Platform admin: suspends a tenant. From the next request its keys, tokens and PATs, and its children's, are refused (403, TENANT_SUSPENDED). The reason (at most 500 characters) goes to its audit log. resume_tenant lifts it.",
      input: {
        id: tenantIdArgument,
        reason: z.string().optional().describe('Why, for the audit log.'),
      },
      output: { organization: z.object(OrganizationSummaryRecord) },
      annotations: REPLACES,
      async run(input, { signal }) {
        const organization = await platform.suspendTenant(input, { signal });
        return {
          summary: `Suspended ${describeOrganization(organization)}.`,
          result: { organization: pick(OrganizationSummaryRecord, organization) },
        };
      },
    }),

    defineTool({
      name: 'resume_tenant',
      title: 'Resume a tenant (platform admin)',
      description:
        'Platform admin: lifts the suspension of a tenant; its credentials work again from the next request.',
      input: { id: tenantIdArgument },
      output: { organization: z.object(OrganizationSummaryRecord) },
      annotations: { ...REPLACES, destructiveHint: false },
      async run({ id }, { signal }) {
        const organization = await platform.resumeTenant(id, { signal });
        return {
          summary: `Resumed ${describeOrganization(organization)}.`,
          result: { organization: pick(OrganizationSummaryRecord, organization) },
        };
      },
    }),

    defineTool({
      name: 'top_up_balance',
      title: 'Top up a balance (platform admin)',
      description:
        'Platform admin: adds to a tenant\'s prepaid balance (a postpaid tenant becomes prepaid). Give the amount as amountUsd (a decimal string, e.g. "20") or amountMicros, not both; 1 micro to 1,000,000 USD.',
      input: {
        tenantId: tenantIdArgument,
        amountUsd: usdAmount('The amount'),
        amountMicros: microsAmount('The amount'),
      },
      output: { balance: z.object(BalanceRecord) },
      annotations: CREATES,
      async run({ tenantId, amountUsd, amountMicros }, { signal }) {
        const amount = microsOf(amountUsd, amountMicros, ['amountUsd', 'amountMicros']);
        if (amount == null)
          throw new ToolInputError('give amountUsd or amountMicros', ['amountUsd', 'amountMicros']);
        const balance = await platform.topUpBalance({ tenantId, amountMicros: amount }, { signal });
        const remaining =
          balance.remainingMicros === null ? '' : `; ${formatUsd(balance.remainingMicros)} left`;
        return {
          summary: `Added ${formatUsd(amount)} to the balance of ${balance.tenantId}${remaining}.`,
          result: { balance: pick(BalanceRecord, balance) },
        };
      },
    }),
  ];
}
