/**
 * Model routes (admin SDK `listModelRoutes`, `upsertModelRoute`, `deleteModelRoute`; permission
 * `credentials:manage`): one model name served by several targets, with weights, fallback tiers,
 * retries and circuit breaking.
 */
import {
  type AdminClient,
  MAX_ROUTE_TARGETS,
  MODEL_ROUTE_STRATEGIES,
  type ModelRoute,
  ROUTE_RETRY_CONDITIONS,
} from '@inference-gateway/admin';
import { z } from 'zod';
import { ModelRouteRecord, pick } from '../records.ts';
import { defineTool, READS, REMOVES, REPLACES, type ToolDefinition } from '../tool.ts';

const routeScope = z
  .string()
  .optional()
  .describe(
    'The workspace of the route; left out: the tenant-wide route (a workspace route of the same model wins).',
  );

/** `chat (tenant-wide, weighted): p0 openai/a×3, @mine/b×1; p1 anthropic/c×1; 3 attempts`. */
export function describeRoute(route: ModelRoute): string {
  const scope = route.workspaceId === null ? 'tenant-wide' : `workspace ${route.workspaceId}`;
  const tiers = new Map<number, string[]>();
  for (const target of route.targets) {
    tiers.set(target.priority, [...(tiers.get(target.priority) ?? []), `${target.model}×${target.weight}`]);
  }
  const targets = [...tiers.entries()]
    .sort(([left], [right]) => left - right)
    .map(([priority, entries]) => `p${priority} ${entries.join(', ')}`)
    .join('; ');
  const shared = route.shared ? ', shared' : '';
  return `${route.model} (${scope}, ${route.strategy}${shared}): ${targets}; ${route.retry.maxAttempts} attempt(s)`;
}

export function routeTools(admin: AdminClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'list_model_routes',
      title: 'List model routes',
      description:
        "Lists the tenant's model routes (a model name served by several targets: weights, fallback tiers by priority, retries, circuit breaker), every default filled in; with workspaceId, those in force there (the workspace's and the tenant-wide ones).",
      input: { workspaceId: z.string().optional().describe('Only the routes in force in this workspace.') },
      output: { routes: z.array(z.object(ModelRouteRecord)) },
      annotations: READS,
      async run({ workspaceId }, { signal }) {
        const routes = await admin.listModelRoutes(workspaceId === undefined ? {} : { workspaceId }, {
          signal,
        });
        return {
          summary:
            routes.length === 0
              ? 'No model routes.'
              : `${routes.length} model route(s): ${routes.map(describeRoute).join(' | ')}.`,
          result: { routes: routes.map((route) => pick(ModelRouteRecord, route)) },
        };
      },
    }),

    defineTool({
      name: 'upsert_model_route',
      title: 'Create or replace a model route',
      description:
        'Creates or replaces the route of a model name in a scope: requests for that model are served by its targets, picked by weight (or fewest requests in flight) in the lowest priority tier with a healthy target, retried on another target on failure. The whole route is replaced: fields left out take their defaults (weight 1, priority 0, 3 attempts on every condition, 100 ms backoff up to 2000 ms, 30 s first-byte timeout, circuit opening after 5 failures for 30 s). A target whose provider or Connection does not exist is refused (VALIDATION_ERROR). In force when this returns.',
      input: {
        model: z
          .string()
          .describe("The name clients send as \"model\": letters, digits, '.', '_', ':' and '-' (no '/')."),
        workspaceId: routeScope,
        strategy: z
          .enum(MODEL_ROUTE_STRATEGIES)
          .optional()
          .describe(
            'weighted (default), or leastBusy: the target with the fewest requests in flight (ties by weight).',
          ),
        targets: z
          .array(
            z.object({
              model: z
                .string()
                .describe(
                  'provider/model (the platform key) or @connection/model (a Connection of the tenant).',
                ),
              weight: z
                .number()
                .int()
                .optional()
                .describe('Share within its priority tier, 0..1000 (default 1).'),
              priority: z
                .number()
                .int()
                .optional()
                .describe('The tier, 0..100 (default 0): a higher tier is a fallback.'),
            }),
          )
          .describe(`1 to ${MAX_ROUTE_TARGETS} targets.`),
        retry: z
          .object({
            maxAttempts: z
              .number()
              .int()
              .optional()
              .describe('Attempts in all, the first included, 1..10 (default 3).'),
            on: z
              .array(z.enum(ROUTE_RETRY_CONDITIONS))
              .optional()
              .describe('What is retried on another target (default all four).'),
            backoffMs: z.number().int().optional().describe('Wait before a retry (default 100).'),
            maxBackoffMs: z
              .number()
              .int()
              .optional()
              .describe('The longest wait, Retry-After included (default 2000).'),
          })
          .optional(),
        firstByteTimeoutMs: z.number().int().optional().describe('Per attempt (default 30000).'),
        circuitBreaker: z
          .object({
            consecutiveFailures: z
              .number()
              .int()
              .optional()
              .describe('Failures that open a target (default 5).'),
            openSeconds: z.number().int().optional().describe('How long it stays open (default 30).'),
          })
          .optional(),
        shared: z
          .boolean()
          .optional()
          .describe("Serve every tenant without a route of this model (the platform tenant's routes only)."),
      },
      output: { route: z.object(ModelRouteRecord) },
      annotations: REPLACES,
      async run(input, { signal }) {
        const route = await admin.upsertModelRoute(input, { signal });
        return {
          summary: `Saved model route ${describeRoute(route)}.`,
          result: { route: pick(ModelRouteRecord, route) },
        };
      },
    }),

    defineTool({
      name: 'delete_model_route',
      title: 'Delete a model route',
      description:
        'Deletes the route of a model name in a scope (workspaceId left out: the tenant-wide one); the model then routes as a plain model string again (or by a route of a wider scope). In force when this returns.',
      input: { model: z.string().describe("The route's model name."), workspaceId: routeScope },
      output: { deleted: z.boolean() },
      annotations: REMOVES,
      async run({ model, workspaceId }, { signal }) {
        const deleted = await admin.deleteModelRoute(
          { model, ...(workspaceId === undefined ? {} : { workspaceId }) },
          { signal },
        );
        const scope = workspaceId === undefined ? 'tenant-wide' : `workspace ${workspaceId}`;
        return {
          summary: deleted
            ? `Deleted model route ${model} (${scope}).`
            : `No model route ${model} (${scope}).`,
          result: { deleted },
        };
      },
    }),
  ];
}
