/**
 * The exact-match cache key: a hash of the canonical request body (which carries the model).
 * Canonical: object keys sorted at every depth, the `tools` array sorted by function name, and the
 * tools' cache declarations (`x-service-cache`) removed, so that equivalent requests share a key
 * and any difference in model, messages or tool list does not.
 */
import { createHash, hash } from 'node:crypto';

export const TOOL_CACHE_DECLARATION = 'x-service-cache';

function canonicalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalise);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    if (record[key] !== undefined) sorted[key] = canonicalise(record[key]);
  }
  return sorted;
}

function toolName(tool: unknown): string {
  if (typeof tool !== 'object' || tool === null) return '';
  const record = tool as { function?: { name?: unknown }; name?: unknown };
  const name = record.function?.name ?? record.name;
  return typeof name === 'string' ? name : '';
}

/** The body as the upstream will see it: tools without their cache declarations. */
export function stripCacheDeclarations(body: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(body.tools)) return body;
  if (!body.tools.some((tool) => typeof tool === 'object' && tool !== null && TOOL_CACHE_DECLARATION in tool))
    return body;
  return {
    ...body,
    tools: body.tools.map((tool) => {
      if (typeof tool !== 'object' || tool === null || !(TOOL_CACHE_DECLARATION in tool)) return tool;
      const { [TOOL_CACHE_DECLARATION]: _declaration, ...rest } = tool as Record<string, unknown>;
      return rest;
    }),
  };
}

export function canonicalRequest(body: Record<string, unknown>): string {
  const stripped = stripCacheDeclarations(body);
  const withSortedTools = Array.isArray(stripped.tools)
    ? {
        ...stripped,
        // Stable sort by name: tools with equal names keep their relative order.
        tools: stripped.tools
          .map((tool, index) => ({ tool, index, name: toolName(tool) }))
          .sort((left, right) =>
            left.name < right.name ? -1 : left.name > right.name ? 1 : left.index - right.index,
          )
          .map((entry) => entry.tool),
      }
    : stripped;
  return JSON.stringify(canonicalise(withSortedTools));
}

/** Hex SHA-256 of the route and the canonical body. */
export function requestHash(route: string, body: Record<string, unknown>): string {
  // One-shot: a fraction of createHash's cost, on every cacheable request.
  return hash('sha256', `${route}\n${canonicalRequest(body)}`, 'hex');
}

/** A short, key-safe digest of a free-form namespace. */
export function namespaceDigest(namespace: string): string {
  return createHash('sha256').update(namespace).digest('base64url').slice(0, 22);
}

/**
 * The cache's scope of a workspace: its tenant and its id (`<tenantId>/<workspaceId>`), because
 * workspace ids are only unique within a tenant (every organisation has a `default`). Entries,
 * purge generations, tag invalidations and semantic buckets all live under it, so two tenants'
 * caches never meet.
 */
export function cacheScopeId(tenantId: string, workspaceId: string): string {
  return `${tenantId}/${workspaceId}`;
}
