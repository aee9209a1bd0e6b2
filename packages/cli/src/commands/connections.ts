/**
 * `igw connections` (alias `credentials`): a tenant's own provider keys, routed as `@<slug>/<model>`.
 * list, add (provider, slug, the key from stdin or a file, the provider's extras, a daily cap in USD
 * converted to micros exactly), test (an upstream probe; exit 1 when it fails), revoke.
 */
import {
  type Connection,
  type ConnectionTestResult,
  PROVIDER_CREDENTIAL_KINDS,
  parseProviderKind,
  providerResourceName,
  type UpsertConnectionInput,
} from '@inference-gateway/admin';
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.ts';
import { EXIT_CODES, UsageError } from '../errors.ts';
import { type Column, formatUsd, orDash, renderFields, renderTable } from '../output.ts';
import { parseUsdMicros } from '../parsers.ts';

interface AddOptions {
  slug?: string;
  label?: string;
  keyStdin?: boolean;
  keyFile?: string;
  awsAccessKeyId?: string;
  awsSecretAccessKeyStdin?: boolean;
  awsSecretAccessKeyFile?: string;
  awsSessionTokenStdin?: boolean;
  awsSessionTokenFile?: string;
  awsRegion?: string;
  serviceAccountFile?: string;
  vertexProject?: string;
  vertexRegion?: string;
  baseUrl?: string;
  workspace?: string;
  defaultModel?: string;
  dailyCapUsd?: number;
  removeDailyCap?: boolean;
}

const CONNECTION_COLUMNS: Column<Connection>[] = [
  { header: 'slug', value: (connection) => connection.slug },
  { header: 'provider', value: (connection) => connection.provider },
  { header: 'workspace', value: (connection) => connection.workspaceId ?? 'all' },
  {
    header: 'daily cap',
    value: (connection) => formatUsd(connection.dailyCapMicros, 'none'),
    align: 'right',
  },
  { header: 'spent today', value: (connection) => formatUsd(connection.spentTodayMicros), align: 'right' },
  { header: 'key', value: (connection) => orDash(connection.keyHint) },
  { header: 'status', value: (connection) => connection.status },
];

/** One Connection as `label  value` lines (after add). */
export function renderConnection(connection: Connection): string {
  return renderFields([
    ['slug', connection.slug],
    ['provider', connection.provider],
    ['id', connection.id],
    ['key', orDash(connection.keyHint)],
    ['workspace', connection.workspaceId ?? 'all'],
    ['base url', orDash(connection.baseUrl)],
    ...(connection.awsRegion === null ? [] : [['aws region', connection.awsRegion] as const]),
    ...(connection.vertexProject === null ? [] : [['vertex project', connection.vertexProject] as const]),
    ...(connection.vertexRegion === null ? [] : [['vertex region', connection.vertexRegion] as const]),
    ['default model', orDash(connection.defaultModel)],
    ['daily cap', formatUsd(connection.dailyCapMicros, 'none')],
    ['status', connection.ready ? connection.status : `${connection.status} (not ready)`],
  ]);
}

function renderTestResult(slug: string, result: ConnectionTestResult): string {
  return renderFields([
    ['connection', slug],
    ['ok', result.ok ? 'yes' : 'no'],
    ['status', orDash(result.status)],
    ['latency', `${result.latencyMs} ms`],
    ['message', orDash(result.message)],
  ]);
}

/**
 * Refuses an unknown provider (exit 2) before any secret is read: a key piped into a mistyped
 * command would otherwise be consumed, or a terminal would wait for one, for nothing.
 */
function checkProvider(provider: string): void {
  if (parseProviderKind(provider) !== undefined) return;
  const known = PROVIDER_CREDENTIAL_KINDS.map(providerResourceName).join(', ');
  throw new UsageError(`unknown provider '${provider}': use one of ${known}`);
}

/** The upsert input of `connections add`: the flags, and the secrets read from stdin or files. */
async function addInput(
  context: CliContext,
  provider: string,
  options: AddOptions,
): Promise<UpsertConnectionInput> {
  checkProvider(provider);
  const apiKey = await context.secrets.read({
    what: 'the provider key',
    stdin: options.keyStdin,
    stdinFlag: '--key-stdin',
    file: options.keyFile,
    fileFlag: '--key-file',
  });
  const awsSecretAccessKey = await context.secrets.read({
    what: 'the AWS secret access key',
    stdin: options.awsSecretAccessKeyStdin,
    stdinFlag: '--aws-secret-access-key-stdin',
    file: options.awsSecretAccessKeyFile,
    fileFlag: '--aws-secret-access-key-file',
  });
  const awsSessionToken = await context.secrets.read({
    what: 'the AWS session token',
    stdin: options.awsSessionTokenStdin,
    stdinFlag: '--aws-session-token-stdin',
    file: options.awsSessionTokenFile,
    fileFlag: '--aws-session-token-file',
  });
  const gcpServiceAccountJson =
    options.serviceAccountFile === undefined
      ? undefined
      : await context.secrets.fromFile(
          'the service account',
          options.serviceAccountFile,
          '--service-account-file',
        );
  // Left out (undefined) keeps a value on update; only --remove-daily-cap sends an explicit null.
  const fields: Omit<UpsertConnectionInput, 'provider'> = {
    slug: options.slug,
    label: options.label,
    apiKey,
    awsAccessKeyId: options.awsAccessKeyId,
    awsSecretAccessKey,
    awsSessionToken,
    awsRegion: options.awsRegion,
    gcpServiceAccountJson,
    vertexProject: options.vertexProject,
    vertexRegion: options.vertexRegion,
    baseUrl: options.baseUrl,
    workspaceId: options.workspace,
    defaultModel: options.defaultModel,
    dailyCapMicros: options.removeDailyCap ? null : options.dailyCapUsd,
  };
  const defined = Object.entries(fields).filter(([, value]) => value !== undefined);
  return { provider, ...Object.fromEntries(defined) };
}

export function registerConnectionCommands(program: Command, context: CliContext): void {
  const connections = program
    .command('connections')
    .alias('credentials')
    .description("manage Connections: the tenant's own provider keys, routed as @<slug>/<model>")
    .addHelpText(
      'after',
      `
Examples:
  igw connections list
  printf %s "$OPENAI_API_KEY" | igw connections add openai --slug my-openai --key-stdin --daily-cap-usd 5
  igw connections test my-openai
  igw credentials revoke my-openai`,
    );

  connections
    .command('list')
    .description("list the tenant's Connections with their daily cap, today's spend and status")
    .option('--workspace <id>', 'only the Connections this workspace can use')
    .addHelpText(
      'after',
      `
Examples:
  igw connections list
  igw connections list --workspace default --json`,
    )
    .action(async (options: { workspace?: string }, command: Command) => {
      const admin = await context.adminClient(command);
      const list = await admin.listConnections(
        options.workspace === undefined ? {} : { workspaceId: options.workspace },
      );
      context.print(command, list, () =>
        list.length === 0 ? 'No Connections.\n' : renderTable(CONNECTION_COLUMNS, list),
      );
    });

  connections
    .command('add')
    .description('create or update the Connection of a slug (its key from stdin or a file, never argv)')
    .argument(
      '<provider>',
      'openai, anthropic, gemini, bedrock, bedrock-mantle, vertex or openai-compatible (any spelling)',
    )
    .option('--slug <slug>', 'the routing handle of @<slug>/<model> (default: the provider name)')
    .addOption(new Option('--label <label>', 'deprecated alias of --slug').hideHelp())
    .addOption(
      new Option('--key-stdin', 'read the provider key from stdin').helpGroup('Secrets (never on argv):'),
    )
    .addOption(
      new Option('--key-file <path>', 'read the provider key from a file')
        .conflicts('keyStdin')
        .helpGroup('Secrets (never on argv):'),
    )
    .addOption(
      new Option(
        '--aws-secret-access-key-stdin',
        'Bedrock: read the AWS secret access key from stdin',
      ).helpGroup('Secrets (never on argv):'),
    )
    .addOption(
      new Option('--aws-secret-access-key-file <path>', 'Bedrock: read the AWS secret access key from a file')
        .conflicts('awsSecretAccessKeyStdin')
        .helpGroup('Secrets (never on argv):'),
    )
    .addOption(
      new Option('--aws-session-token-stdin', 'Bedrock: read a temporary session token from stdin').helpGroup(
        'Secrets (never on argv):',
      ),
    )
    .addOption(
      new Option('--aws-session-token-file <path>', 'Bedrock: read a temporary session token from a file')
        .conflicts('awsSessionTokenStdin')
        .helpGroup('Secrets (never on argv):'),
    )
    .addOption(
      new Option('--service-account-file <path>', 'Vertex: the service account key file (JSON)').helpGroup(
        'Secrets (never on argv):',
      ),
    )
    .option(
      '--base-url <url>',
      'the upstream base URL (required for openai-compatible; OpenAI-style ends in /v1)',
    )
    .option('--workspace <id>', 'only this workspace may use the Connection (default: every workspace)')
    .option('--default-model <model>', 'the model of @<slug> requests that name none')
    .option('--aws-access-key-id <id>', 'Bedrock: the AWS access key id (with the secret access key)')
    .option('--aws-region <region>', 'Bedrock: the AWS region (us-east-1)')
    .option('--vertex-project <project>', 'Vertex: the Google Cloud project')
    .option('--vertex-region <region>', 'Vertex: the region (us-central1)')
    .addOption(
      new Option(
        '--daily-cap-usd <usd>',
        'spend cap per UTC day in USD (2.5; 0 stops the Connection)',
      ).argParser(parseUsdMicros),
    )
    .addOption(
      new Option('--remove-daily-cap', 'remove the daily cap (keeps everything else)').conflicts(
        'dailyCapUsd',
      ),
    )
    .addHelpText(
      'after',
      `
On an update, a flag left out keeps its value (the key included).

Examples:
  printf %s "$OPENAI_API_KEY" | igw connections add openai --slug my-openai --key-stdin --daily-cap-usd 2.5
  igw connections add anthropic --slug claude --key-file ~/.secrets/anthropic --workspace research
  igw connections add openai-compatible --slug local --base-url http://127.0.0.1:11434/v1
  igw connections add bedrock --slug aws --aws-access-key-id AKIA... --aws-region us-east-1 \\
      --aws-secret-access-key-file ~/.secrets/aws
  igw connections add vertex --slug gcp --service-account-file sa.json --vertex-project p --vertex-region us-central1
  igw connections add openai --slug my-openai --remove-daily-cap`,
    )
    .action(async (provider: string, options: AddOptions, command: Command) => {
      const input = await addInput(context, provider, options);
      const admin = await context.adminClient(command);
      const connection = await admin.upsertConnection(input);
      context.print(command, connection, () => renderConnection(connection));
    });

  connections
    .command('test')
    .description("probe the upstream with the Connection's key (exit 1 when the probe fails)")
    .argument('<slug>', 'the Connection')
    .addHelpText(
      'after',
      `
Examples:
  igw connections test my-openai
  igw connections test my-openai --json`,
    )
    .action(async (slug: string, _options: unknown, command: Command) => {
      const admin = await context.adminClient(command);
      const result = await admin.testConnection(slug);
      context.print(command, result, () => renderTestResult(slug, result));
      if (!result.ok) context.exitCode = EXIT_CODES.failure;
    });

  connections
    .command('revoke')
    .description('delete the Connection and its key; returns once the gateway no longer serves it')
    .argument('<slug>', 'the Connection')
    .addHelpText(
      'after',
      `
Examples:
  igw connections revoke my-openai`,
    )
    .action(async (slug: string, _options: unknown, command: Command) => {
      const admin = await context.adminClient(command);
      const revoked = await admin.revokeConnection(slug);
      context.print(command, { revoked, slug }, () => `Revoked Connection '${slug}'.\n`);
    });
}
