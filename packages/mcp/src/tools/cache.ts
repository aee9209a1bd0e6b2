/**
 * The response cache (admin SDK `purgeCache`, `revalidateCacheTags`, `listCachePolicies`,
 * `upsertCachePolicy`, `deleteCachePolicy`; permission `cache:manage`).
 */
import type { AdminClient, CachePolicy } from '@inference-gateway/admin';
import { z } from 'zod';
import { CachePolicyRecord, pick } from '../records.ts';
import { defineTool, READS, REMOVES, REPLACES, type ToolDefinition } from '../tool.ts';
import { workspaceIdArgument } from './arguments.ts';

const policyScope = z
  .string()
  .optional()
  .describe(
    'The workspace of the policy; left out: the tenant-wide policy (a workspace policy of the same name wins).',
  );

function describePolicy(policy: CachePolicy): string {
  const scope = policy.workspaceId === null ? 'tenant-wide' : `workspace ${policy.workspaceId}`;
  const semantic = policy.semantic ? ', semantic' : '';
  return `${policy.name} (${scope}: ttl ${policy.ttlSeconds}s, swr ${policy.swrSeconds}s, max ${policy.maxTtlSeconds}s${semantic})`;
}

export function cacheTools(admin: AdminClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'purge_cache',
      title: 'Purge the response cache',
      description:
        "Drops a workspace's cached responses (exact and semantic), or only one namespace of it. Everything goes; to drop only the entries of some tags use revalidate_cache_tags.",
      input: {
        workspaceId: workspaceIdArgument,
        namespace: z
          .string()
          .optional()
          .describe('Only this cache namespace (as sent in x-service-cache-namespace).'),
      },
      output: { purged: z.boolean(), generation: z.number().describe('The new purge generation') },
      // Not idempotent: a second purge also drops what was cached in between.
      annotations: { ...REMOVES, idempotentHint: false },
      async run({ workspaceId, namespace }, { signal }) {
        const result = await admin.purgeCache(
          { workspaceId, ...(namespace === undefined ? {} : { namespace }) },
          { signal },
        );
        const what =
          namespace === undefined ? `workspace ${workspaceId}` : `namespace ${namespace} of ${workspaceId}`;
        return {
          summary: `Purged the cache of ${what} (generation ${result.generation}).`,
          result: { purged: result.purged, generation: result.generation },
        };
      },
    }),

    defineTool({
      name: 'revalidate_cache_tags',
      title: 'Revalidate cache tags',
      description:
        'Stops every cached response that declared one of the tags from being served (entries without them are untouched); audit-logged. At most 64 tags per call; takes effect within seconds.',
      input: {
        workspaceId: workspaceIdArgument,
        tags: z
          .array(z.string())
          .describe('The dependency tags (as declared in x-service-cache-tags), at most 64.'),
      },
      output: { invalidated: z.number().describe('How many distinct tags were invalidated') },
      annotations: { ...REMOVES, idempotentHint: false },
      async run({ workspaceId, tags }, { signal }) {
        const { invalidated } = await admin.revalidateCacheTags({ workspaceId, tags }, { signal });
        return {
          summary: `Invalidated ${invalidated} tag(s) in workspace ${workspaceId}.`,
          result: { invalidated },
        };
      },
    }),

    defineTool({
      name: 'list_cache_policies',
      title: 'List cache policies',
      description:
        "Lists the tenant's cache policies (TTL, stale-while-revalidate window, maximum TTL, default tags, semantic matching); with workspaceId, those in force there (the workspace's and the tenant-wide ones).",
      input: { workspaceId: z.string().optional().describe('Only the policies in force in this workspace.') },
      output: { policies: z.array(z.object(CachePolicyRecord)) },
      annotations: READS,
      async run({ workspaceId }, { signal }) {
        const policies = await admin.listCachePolicies(workspaceId === undefined ? {} : { workspaceId }, {
          signal,
        });
        return {
          summary:
            policies.length === 0
              ? 'No cache policies.'
              : `${policies.length} cache policy(ies): ${policies.map(describePolicy).join('; ')}.`,
          result: { policies: policies.map((policy) => pick(CachePolicyRecord, policy)) },
        };
      },
    }),

    defineTool({
      name: 'upsert_cache_policy',
      title: 'Create or replace a cache policy',
      description:
        'Creates or replaces the cache policy of a name in a scope (a workspace, or tenant-wide); fields left out take their defaults (ttl 600 s, no stale window). In force when this returns.',
      input: {
        name: z.string().describe('The policy name (requests select it with x-service-cache-policy).'),
        workspaceId: policyScope,
        ttlSeconds: z.number().int().optional().describe('How long a response is served from the cache.'),
        swrSeconds: z.number().int().optional().describe('Stale-while-revalidate window after the TTL.'),
        maxTtlSeconds: z
          .number()
          .int()
          .optional()
          .describe('The most a request may ask for (at most 86400).'),
        defaultTags: z
          .array(z.string())
          .optional()
          .describe('Tags every cached response of the policy gets.'),
        semantic: z
          .boolean()
          .optional()
          .describe('Also serve responses to similar (not only identical) requests.'),
      },
      output: { policy: z.object(CachePolicyRecord) },
      annotations: REPLACES,
      async run(input, { signal }) {
        const policy = await admin.upsertCachePolicy(input, { signal });
        return {
          summary: `Saved cache policy ${describePolicy(policy)}.`,
          result: { policy: pick(CachePolicyRecord, policy) },
        };
      },
    }),

    defineTool({
      name: 'delete_cache_policy',
      title: 'Delete a cache policy',
      description:
        'Deletes the cache policy of a name in a scope (workspaceId left out: the tenant-wide one).',
      input: { name: z.string().describe('The policy name.'), workspaceId: policyScope },
      output: { deleted: z.boolean() },
      annotations: REMOVES,
      async run({ name, workspaceId }, { signal }) {
        const deleted = await admin.deleteCachePolicy(
          { name, ...(workspaceId === undefined ? {} : { workspaceId }) },
          { signal },
        );
        const scope = workspaceId === undefined ? 'tenant-wide' : `workspace ${workspaceId}`;
        return {
          summary: deleted
            ? `Deleted cache policy ${name} (${scope}).`
            : `No cache policy ${name} (${scope}).`,
          result: { deleted },
        };
      },
    }),
  ];
}
