/**
 * `igw routes`: model routes (a PAT with `credentials:manage`): one model name served by several
 * targets with weights, fallback tiers, retries and circuit breaking. list, set (the whole route:
 * what is left out takes its default), delete.
 */
import {
  MAX_ROUTE_TARGETS,
  MODEL_ROUTE_STRATEGIES,
  type ModelRoute,
  type ModelRouteInput,
  type ModelRouteStrategy,
  type ModelRouteTargetInput,
  ROUTE_RETRY_CONDITIONS,
  type RouteRetryCondition,
} from '@inference-gateway/admin';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CliContext } from '../context.ts';
import { type Column, renderFields, renderTable } from '../output.ts';
import { parsePositiveInteger } from '../parsers.ts';

interface SetOptions {
  target: ModelRouteTargetInput[];
  workspace?: string;
  strategy?: ModelRouteStrategy;
  maxAttempts?: number;
  retryOn?: RouteRetryCondition[];
  backoffMs?: number;
  maxBackoffMs?: number;
  firstByteTimeoutMs?: number;
  failures?: number;
  openSeconds?: number;
  shared?: boolean;
}

/**
 * One `--target`: `<model>[,weight=<n>][,priority=<n>]` (a comma, since model names hold colons
 * and slashes: `ollama/llama3:8b`, `together/meta-llama/Llama-3-8b`).
 */
export function parseTarget(
  value: string,
  previous: ModelRouteTargetInput[] | undefined,
): ModelRouteTargetInput[] {
  const [model = '', ...settings] = value.split(',').map((part) => part.trim());
  if (model === '') throw new InvalidArgumentError('expected <model>[,weight=<n>][,priority=<n>]');
  const target: ModelRouteTargetInput = { model };
  for (const setting of settings) {
    const match = /^(weight|priority)=(\d+)$/.exec(setting);
    if (match === null) {
      throw new InvalidArgumentError(`'${setting}' is neither weight=<n> nor priority=<n> (whole numbers)`);
    }
    target[match[1] as 'weight' | 'priority'] = Number(match[2]);
  }
  return [...(previous ?? []), target];
}

/** A whole number of 0 or more (`0`, `250`). */
function parseNonNegativeInteger(value: string): number {
  const text = value.trim();
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new InvalidArgumentError('expected a whole number of 0 or more');
  }
  return Number(text);
}

/** One `--retry-on` condition (repeatable); `none` retries on nothing. */
function parseRetryOn(value: string, previous: RouteRetryCondition[] | undefined): RouteRetryCondition[] {
  if (value === 'none') return [...(previous ?? [])];
  const known = ROUTE_RETRY_CONDITIONS as readonly string[];
  if (!known.includes(value)) {
    throw new InvalidArgumentError(`expected one of ${ROUTE_RETRY_CONDITIONS.join(', ')}, or none`);
  }
  return [...(previous ?? []), value as RouteRetryCondition];
}

/** `p0: openai/a (3), @mine/b (1); p1: anthropic/c (1)`: the tiers in order, each target's weight. */
export function describeTargets(route: Pick<ModelRoute, 'targets'>): string {
  const tiers = new Map<number, string[]>();
  for (const target of route.targets) {
    tiers.set(target.priority, [...(tiers.get(target.priority) ?? []), `${target.model} (${target.weight})`]);
  }
  return [...tiers.entries()]
    .sort(([left], [right]) => left - right)
    .map(([priority, targets]) => `p${priority}: ${targets.join(', ')}`)
    .join('; ');
}

const ROUTE_COLUMNS: Column<ModelRoute>[] = [
  { header: 'model', value: (route) => route.model },
  { header: 'workspace', value: (route) => route.workspaceId ?? 'all' },
  { header: 'strategy', value: (route) => route.strategy },
  { header: 'attempts', value: (route) => String(route.retry.maxAttempts), align: 'right' },
  { header: 'shared', value: (route) => (route.shared ? 'yes' : 'no') },
  { header: 'targets', value: describeTargets },
];

/** One route as `label  value` lines (after set). */
export function renderRoute(route: ModelRoute): string {
  const { retry, circuitBreaker } = route;
  return renderFields([
    ['model', route.model],
    ['workspace', route.workspaceId ?? 'all'],
    ['strategy', route.strategy],
    ['targets', describeTargets(route)],
    ['attempts', String(retry.maxAttempts)],
    ['retry on', retry.on.length === 0 ? 'nothing' : retry.on.join(', ')],
    ['backoff', `${retry.backoffMs} ms, at most ${retry.maxBackoffMs} ms`],
    ['first byte', `within ${route.firstByteTimeoutMs} ms`],
    [
      'circuit',
      `opens after ${circuitBreaker.consecutiveFailures} failures, for ${circuitBreaker.openSeconds} s`,
    ],
    ['shared', route.shared ? 'yes' : 'no'],
  ]);
}

function routeInput(model: string, options: SetOptions): ModelRouteInput {
  const retry = {
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(options.retryOn === undefined ? {} : { on: [...new Set(options.retryOn)] }),
    ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
    ...(options.maxBackoffMs === undefined ? {} : { maxBackoffMs: options.maxBackoffMs }),
  };
  const circuitBreaker = {
    ...(options.failures === undefined ? {} : { consecutiveFailures: options.failures }),
    ...(options.openSeconds === undefined ? {} : { openSeconds: options.openSeconds }),
  };
  return {
    model,
    targets: options.target,
    ...(options.workspace === undefined ? {} : { workspaceId: options.workspace }),
    ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
    ...(Object.keys(retry).length === 0 ? {} : { retry }),
    ...(options.firstByteTimeoutMs === undefined ? {} : { firstByteTimeoutMs: options.firstByteTimeoutMs }),
    ...(Object.keys(circuitBreaker).length === 0 ? {} : { circuitBreaker }),
    ...(options.shared ? { shared: true } : {}),
  };
}

export function registerRouteCommands(program: Command, context: CliContext): void {
  const routes = program
    .command('routes')
    .description('manage model routes: one model name served by several targets, with fallbacks and retries')
    .addHelpText(
      'after',
      `
Examples:
  igw routes list
  igw routes set chat-default --target openai/gpt-4o-mini,weight=3 --target @my-azure/gpt-4o-mini \\
      --target anthropic/claude-3-5-haiku-latest,priority=1
  igw routes delete chat-default`,
    );

  routes
    .command('list')
    .description("list the tenant's model routes (with --workspace: those in force there)")
    .option('--workspace <id>', "the workspace's routes and the tenant-wide ones")
    .addHelpText(
      'after',
      `
Examples:
  igw routes list
  igw routes list --workspace default --json`,
    )
    .action(async (options: { workspace?: string }, command: Command) => {
      const admin = await context.adminClient(command);
      const list = await admin.listModelRoutes(
        options.workspace === undefined ? {} : { workspaceId: options.workspace },
      );
      context.print(command, list, () =>
        list.length === 0 ? 'No model routes.\n' : renderTable(ROUTE_COLUMNS, list),
      );
    });

  routes
    .command('set')
    .description('create or replace the route of a model; returns once the gateway serves it')
    .argument('<model>', "the name clients send as \"model\" (letters, digits, '.', '_', ':', '-'; no '/')")
    .addOption(
      new Option(
        '--target <target>',
        `<model>[,weight=<n>][,priority=<n>]: provider/model or @connection/model (weight 1 and priority 0 by default); repeat, up to ${MAX_ROUTE_TARGETS}`,
      )
        .argParser(parseTarget)
        .makeOptionMandatory(),
    )
    .option('--workspace <id>', 'only this workspace (default: tenant-wide; a workspace route wins)')
    .addOption(
      new Option('--strategy <strategy>', 'how a target is picked within a tier (default weighted)').choices(
        MODEL_ROUTE_STRATEGIES,
      ),
    )
    .addOption(
      new Option(
        '--max-attempts <n>',
        'attempts in all, across targets, the first included (1..10; default 3)',
      )
        .argParser(parsePositiveInteger)
        .helpGroup('Retries:'),
    )
    .addOption(
      new Option(
        '--retry-on <condition>',
        `${ROUTE_RETRY_CONDITIONS.join(', ')}, or none; repeat (default all four)`,
      )
        .argParser(parseRetryOn)
        .helpGroup('Retries:'),
    )
    .addOption(
      new Option('--backoff-ms <ms>', 'wait before a retry (default 100)')
        .argParser(parseNonNegativeInteger)
        .helpGroup('Retries:'),
    )
    .addOption(
      new Option('--max-backoff-ms <ms>', 'the longest wait, Retry-After included (default 2000)')
        .argParser(parseNonNegativeInteger)
        .helpGroup('Retries:'),
    )
    .addOption(
      new Option('--first-byte-timeout-ms <ms>', 'per attempt (default 30000)')
        .argParser(parsePositiveInteger)
        .helpGroup('Retries:'),
    )
    .addOption(
      new Option('--failures <n>', "consecutive failures that open a target's circuit (default 5)")
        .argParser(parsePositiveInteger)
        .helpGroup('Circuit breaker:'),
    )
    .addOption(
      new Option('--open-seconds <s>', 'how long an open circuit skips the target (default 30)')
        .argParser(parsePositiveInteger)
        .helpGroup('Circuit breaker:'),
    )
    .option('--shared', "serve every tenant without a route of this model (the platform tenant's only)")
    .addHelpText(
      'after',
      `
The whole route is replaced: what is left out takes its default. A target whose provider or
Connection does not exist is refused (exit 1) and nothing changes.

Examples:
  igw routes set chat-default --target openai/gpt-4o-mini,weight=3 --target @my-azure/gpt-4o-mini
  igw routes set chat-default --workspace research --strategy leastBusy \\
      --target openai/gpt-4o-mini --target anthropic/claude-3-5-haiku-latest,priority=1 \\
      --max-attempts 2 --retry-on rateLimited --retry-on timeout --first-byte-timeout-ms 5000`,
    )
    .action(async (model: string, options: SetOptions, command: Command) => {
      const admin = await context.adminClient(command);
      const route = await admin.upsertModelRoute(routeInput(model, options));
      context.print(command, route, () => renderRoute(route));
    });

  routes
    .command('delete')
    .description('delete the route of a model; returns once the gateway no longer serves it')
    .argument('<model>', 'the route')
    .option('--workspace <id>', "the workspace's route (default: the tenant-wide one)")
    .addHelpText(
      'after',
      `
Examples:
  igw routes delete chat-default
  igw routes delete chat-default --workspace research`,
    )
    .action(async (model: string, options: { workspace?: string }, command: Command) => {
      const admin = await context.adminClient(command);
      const deleted = await admin.deleteModelRoute({
        model,
        ...(options.workspace === undefined ? {} : { workspaceId: options.workspace }),
      });
      const scope = options.workspace === undefined ? 'tenant-wide' : `of workspace '${options.workspace}'`;
      context.print(command, { deleted, model }, () => `Deleted the ${scope} route '${model}'.\n`);
    });
}
