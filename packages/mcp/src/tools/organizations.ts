/**
 * The two REST calls without a PAT: organisation sign-up (`POST /auth/org/create`, anonymous, with
 * a referral) and child-tenant provisioning (`POST /provision/tenant`, with the configured
 * provisioning key).
 */
import type { AdminClient } from '@inference-gateway/admin';
import { z } from 'zod';
import { CreatedOrganizationRecord, OwnerPatRecord, ProvisionedTenantRecord, pick } from '../records.ts';
import { CREATES, defineTool, type ToolDefinition } from '../tool.ts';

export function createOrganizationTool(admin: AdminClient): ToolDefinition {
  return defineTool({
    name: 'create_organization',
    title: 'Create an organisation',
    description: [
      'Signs up a new organisation (a top-level tenant with the workspace "default"), anonymously: it does not use or change this server\'s own credentials.',
      'referral is an optional referral tag (trimmed; at most 64 of a-z 0-9 . _ -), set once at creation and never changed; the platform admin reads it back. A taken slug is CONFLICT.',
      "The result contains the owner's personal access token (every permission): a new secret, returned once and never again; hand it to the organisation's owner.",
    ].join(' '),
    input: {
      name: z.string().describe('Display name (1-200 characters).'),
      email: z.string().describe("The owner's e-mail address."),
      slug: z.string().optional().describe('1-56 of a-z 0-9 -; default: made from the name.'),
      referral: z
        .string()
        .optional()
        .describe('Referral tag: at most 64 of a-z 0-9 . _ - (e.g. "partner.x").'),
    },
    output: {
      organization: z.object(CreatedOrganizationRecord),
      pat: z.object(OwnerPatRecord),
    },
    annotations: CREATES,
    async run(input, { signal }) {
      const { organization, pat } = await admin.createOrganization(input, { signal });
      const referral = organization.referral === null ? 'no referral' : `referral ${organization.referral}`;
      return {
        summary: `Created organisation ${organization.slug} (${organization.name}, ${referral}, owner ${organization.ownerEmail}). The owner's PAT ${pat.id} is in the result, shown this once.`,
        result: {
          organization: pick(CreatedOrganizationRecord, organization),
          pat: pick(OwnerPatRecord, pat),
        },
      };
    },
  });
}

export function provisionTenantTool(admin: AdminClient, provisioningKey: string): ToolDefinition {
  return defineTool({
    name: 'provision_tenant',
    title: 'Provision a child tenant',
    description: [
      "Creates a child tenant of this server's tenant (which is liable for the child's spend), with the configured provisioning key.",
      "Give an idempotencyKey to make retries safe: a retry returns the first call's ids with replayed: true and apiKey: null, and never creates a second tenant.",
      "The result contains the child's workspace API key (tt_sk_..., chat:write and embed): a new secret, returned once and never again.",
    ].join(' '),
    input: {
      name: z.string().describe("The child tenant's display name (1-200 characters)."),
      region: z.string().optional().describe('A region name (1-63 of a-z 0-9 -).'),
      billingMode: z
        .enum(['delegated'])
        .optional()
        .describe("delegated (the default and the only mode): the parent answers for the child's spend."),
      idempotencyKey: z
        .string()
        .optional()
        .describe('1-255 printable ASCII characters; the same key returns the same tenant.'),
    },
    output: { tenant: z.object(ProvisionedTenantRecord) },
    annotations: CREATES,
    async run({ idempotencyKey, ...input }, { signal }) {
      const tenant = await admin.provisionTenant(input, {
        provisioningKey,
        signal,
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      });
      const key =
        tenant.apiKey === null
          ? 'no key (a replay: the key was returned by the first call)'
          : 'its API key is in the result, shown this once';
      return {
        summary: `${tenant.replayed ? 'Found' : 'Provisioned'} child tenant ${tenant.tenantId} (workspace ${tenant.workspaceId}); ${key}. Top up at ${tenant.topUpUrl}.`,
        result: { tenant: pick(ProvisionedTenantRecord, tenant) },
      };
    },
  });
}
