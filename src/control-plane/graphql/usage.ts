/**
 * `usage`: a workspace's requests, tokens, cost, cache hits and what they saved, over a range of
 * UTC days, summed by the dimensions asked for (model, key, token, Connection, model route, day). Read from the
 * rolled-up cells the gateways keep in the runtime store (billing/usage-analytics.ts); a workspace
 * of the caller's tenant only (needs `billing:read`).
 */
import { decodeCell, type UsageCell } from '../../billing/usage-analytics.ts';
import { cacheScopeId } from '../../cache/cache-key.ts';
import { emptyUsageTotals, USAGE_FIELDS, type UsageTotals } from '../../stores/types.ts';
import { type ResolverContext, requirePermission, requireWorkspace, validationError } from './context.ts';

export const usageTypeDefs = /* GraphQL */ `
  enum UsageDimension {
    MODEL
    KEY
    TOKEN
    CONNECTION
    "The model route the request named; MODEL is then the route's target that served."
    ROUTE
    DAY
  }

  "One group's totals; the dimensions not grouped by are null."
  type UsageRow {
    day: String
    model: String
    keyId: String
    "The ephemeral token's id (jti); empty for requests made with the key itself."
    tokenId: String
    "The Connection's slug; empty for the platform's credentials."
    connection: String
    "The model route the request named; empty for a model string that is no route."
    route: String
    requests: Float!
    inputTokens: Float!
    outputTokens: Float!
    costMicros: Float!
    cacheHits: Float!
    "What the cache hits would have cost, in USD micros."
    savedMicros: Float!
  }

  type UsageReport {
    workspaceId: String!
    from: String!
    to: String!
    groupBy: [UsageDimension!]!
    rows: [UsageRow!]!
    total: UsageRow!
  }

  type Query {
    "A workspace's usage from \`from\` to \`to\` (UTC days, YYYY-MM-DD, both included; at most 366), summed by \`groupBy\`."
    usage(workspaceId: String!, from: String!, to: String!, groupBy: [UsageDimension!] = []): UsageReport!
  }
`;

type Dimension = 'MODEL' | 'KEY' | 'TOKEN' | 'CONNECTION' | 'ROUTE' | 'DAY';

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

function parseDay(value: string, name: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw validationError(`${name} must be a day as YYYY-MM-DD, got '${value}'`);
  return ms;
}

export const usageResolvers = {
  Query: {
    usage: async (
      _parent: unknown,
      args: { workspaceId: string; from: string; to: string; groupBy?: Dimension[] | null },
      context: ResolverContext,
    ) => {
      requirePermission(context, 'billing:read');
      requireWorkspace(context, args.workspaceId);
      const from = parseDay(args.from, 'from');
      const to = parseDay(args.to, 'to');
      if (to < from) throw validationError('to must not be before from');
      const count = (to - from) / DAY_MS + 1;
      if (count > MAX_DAYS) throw validationError(`at most ${MAX_DAYS} days at once`);
      const groupBy = [...new Set(args.groupBy ?? [])];
      const days = Array.from({ length: count }, (_, index) =>
        new Date(from + index * DAY_MS).toISOString().slice(0, 10),
      );
      const cellsByDay = await context.services.runtime.readUsage(
        cacheScopeId(context.tenantId, args.workspaceId),
        days,
      );
      const groups = new Map<string, { key: Partial<UsageCell> & { day?: string }; totals: UsageTotals }>();
      const total = emptyUsageTotals();
      for (const [day, cells] of cellsByDay) {
        for (const [encoded, totals] of cells) {
          const cell = decodeCell(encoded);
          const key: Partial<UsageCell> & { day?: string } = {};
          if (groupBy.includes('DAY')) key.day = day;
          if (groupBy.includes('MODEL')) key.model = cell.model;
          if (groupBy.includes('KEY')) key.keyId = cell.keyId;
          if (groupBy.includes('TOKEN')) key.tokenId = cell.tokenId;
          if (groupBy.includes('CONNECTION')) key.connection = cell.connection;
          if (groupBy.includes('ROUTE')) key.route = cell.route;
          const id = JSON.stringify(key);
          let group = groups.get(id);
          if (group === undefined) {
            group = { key, totals: emptyUsageTotals() };
            groups.set(id, group);
          }
          for (const field of USAGE_FIELDS) {
            group.totals[field] += totals[field];
            total[field] += totals[field];
          }
        }
      }
      const row = (key: Partial<UsageCell> & { day?: string }, totals: UsageTotals) => ({
        day: key.day ?? null,
        model: key.model ?? null,
        keyId: key.keyId ?? null,
        tokenId: key.tokenId ?? null,
        connection: key.connection ?? null,
        route: key.route ?? null,
        ...totals,
      });
      const rows = [...groups.values()]
        .map((group) => row(group.key, group.totals))
        .sort((a, b) => b.costMicros - a.costMicros || b.requests - a.requests);
      return {
        workspaceId: args.workspaceId,
        from: args.from,
        to: args.to,
        groupBy,
        rows,
        total: row({}, total),
      };
    },
  },
};
