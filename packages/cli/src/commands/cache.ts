/**
 * `igw cache`: the workspace response cache (a PAT with `cache:manage`): purge a workspace or one
 * namespace, revalidate dependency tags, list the cache policies.
 */
import type { CachePolicy } from '@inference-gateway/admin';
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.ts';
import { type Column, renderTable } from '../output.ts';
import { collect } from '../parsers.ts';

const POLICY_COLUMNS: Column<CachePolicy>[] = [
  { header: 'name', value: (policy) => policy.name },
  { header: 'workspace', value: (policy) => policy.workspaceId ?? 'all' },
  { header: 'ttl', value: (policy) => `${policy.ttlSeconds}s`, align: 'right' },
  { header: 'swr', value: (policy) => `${policy.swrSeconds}s`, align: 'right' },
  { header: 'max ttl', value: (policy) => `${policy.maxTtlSeconds}s`, align: 'right' },
  { header: 'semantic', value: (policy) => (policy.semantic ? 'yes' : 'no') },
  {
    header: 'tags',
    value: (policy) => (policy.defaultTags.length === 0 ? '-' : policy.defaultTags.join(',')),
  },
];

export function registerCacheCommands(program: Command, context: CliContext): void {
  const cache = program
    .command('cache')
    .description('purge and revalidate the response cache; list cache policies')
    .addHelpText(
      'after',
      `
Examples:
  igw cache purge --workspace default
  igw cache revalidate --workspace default --tag product:42
  igw cache policies`,
    );

  cache
    .command('purge')
    .description("drop a workspace's cache (exact and semantic), or one namespace of it")
    .requiredOption('--workspace <id>', 'the workspace')
    .option('--namespace <namespace>', 'only this namespace (x-service-cache-namespace)')
    .addHelpText(
      'after',
      `
Examples:
  igw cache purge --workspace default
  igw cache purge --workspace default --namespace user-42`,
    )
    .action(async (options: { workspace: string; namespace?: string }, command: Command) => {
      const admin = await context.adminClient(command);
      const result = await admin.purgeCache({
        workspaceId: options.workspace,
        ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      });
      const scope =
        options.namespace === undefined
          ? `workspace '${options.workspace}'`
          : `namespace '${options.namespace}' of workspace '${options.workspace}'`;
      context.print(command, result, () =>
        result.purged
          ? `Purged the cache of ${scope} (generation ${result.generation}).\n`
          : `Nothing purged in ${scope}.\n`,
      );
    });

  cache
    .command('revalidate')
    .description('stop serving every entry that declared one of the tags (at most 64); others are untouched')
    .requiredOption('--workspace <id>', 'the workspace')
    .addOption(
      new Option('--tag <tag>', 'a dependency tag; repeat for more').argParser(collect).makeOptionMandatory(),
    )
    .addHelpText(
      'after',
      `
Examples:
  igw cache revalidate --workspace default --tag product:42
  igw cache revalidate --workspace default --tag docs --tag doc:7 --json`,
    )
    .action(async (options: { workspace: string; tag: string[] }, command: Command) => {
      const admin = await context.adminClient(command);
      const result = await admin.revalidateCacheTags({ workspaceId: options.workspace, tags: options.tag });
      context.print(
        command,
        result,
        () =>
          `Invalidated ${result.invalidated} tag${result.invalidated === 1 ? '' : 's'} in workspace '${options.workspace}'.\n`,
      );
    });

  cache
    .command('policies')
    .description('list the cache policies (with --workspace: those in force there)')
    .option('--workspace <id>', "the workspace's policies and the tenant-wide ones")
    .addHelpText(
      'after',
      `
Examples:
  igw cache policies
  igw cache policies --workspace default --json`,
    )
    .action(async (options: { workspace?: string }, command: Command) => {
      const admin = await context.adminClient(command);
      const policies = await admin.listCachePolicies(
        options.workspace === undefined ? {} : { workspaceId: options.workspace },
      );
      context.print(command, policies, () =>
        policies.length === 0 ? 'No cache policies.\n' : renderTable(POLICY_COLUMNS, policies),
      );
    });
}
