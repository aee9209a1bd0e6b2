/**
 * `igw tenants provision`: a liable parent creates a child tenant with a provisioning key
 * (`tt_prov_...`, from `--provisioning-key-file`, `--provisioning-key-stdin` or
 * IGW_PROVISIONING_KEY; a PAT is refused by the service). No PAT is needed.
 */
import type { BillingMode, ProvisionedTenant } from '@inference-gateway/admin';
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.ts';
import { MissingCredentialError } from '../errors.ts';
import { orDash, renderFields } from '../output.ts';

interface ProvisionOptions {
  name: string;
  region?: string;
  billingMode?: BillingMode;
  idempotencyKey?: string;
  provisioningKeyFile?: string;
  provisioningKeyStdin?: boolean;
}

function renderProvisioned(tenant: ProvisionedTenant): string {
  return renderFields([
    ['tenant', tenant.tenantId],
    ['workspace', tenant.workspaceId],
    ['api key id', orDash(tenant.apiKeyId)],
    ['api key', tenant.apiKey ?? '(not returned again on a replay)'],
    ['top-up url', tenant.topUpUrl],
    ['replayed', tenant.replayed ? 'yes' : 'no'],
    ...(tenant.message === undefined ? [] : [['message', tenant.message] as const]),
  ]);
}

async function provisioningKey(context: CliContext, options: ProvisionOptions): Promise<string> {
  const fromFlag = await context.secrets.read({
    what: 'the provisioning key',
    stdin: options.provisioningKeyStdin,
    stdinFlag: '--provisioning-key-stdin',
    file: options.provisioningKeyFile,
    fileFlag: '--provisioning-key-file',
  });
  const fromEnv = context.io.env.IGW_PROVISIONING_KEY?.trim();
  const key = fromFlag ?? (fromEnv === '' ? undefined : fromEnv);
  if (key === undefined) {
    throw new MissingCredentialError(
      'no provisioning key: pass --provisioning-key-file <path> or --provisioning-key-stdin, or set IGW_PROVISIONING_KEY',
      'NO_PROVISIONING_KEY',
    );
  }
  return key;
}

export function registerTenantCommands(program: Command, context: CliContext): void {
  const tenants = program
    .command('tenants')
    .description('provision child tenants (with a provisioning key)')
    .addHelpText(
      'after',
      `
Examples:
  igw tenants provision --name "Customer 4711" --provisioning-key-file ~/.secrets/prov`,
    );

  tenants
    .command('provision')
    .description('create a child tenant with a workspace and an API key (the key is printed once)')
    .requiredOption('--name <name>', "the child tenant's display name")
    .option('--region <region>', 'a region name (eu-west-1)')
    .addOption(
      new Option('--billing-mode <mode>', 'who pays: the liable parent (delegated)').choices([
        'delegated',
        'pooled',
      ]),
    )
    .option(
      '--idempotency-key <key>',
      'makes retries safe: a retry returns the first result, never a second tenant',
    )
    .addOption(
      new Option('--provisioning-key-stdin', 'read the provisioning key (tt_prov_...) from stdin').helpGroup(
        'Secrets (never on argv; else IGW_PROVISIONING_KEY):',
      ),
    )
    .addOption(
      new Option('--provisioning-key-file <path>', 'read the provisioning key from a file')
        .conflicts('provisioningKeyStdin')
        .helpGroup('Secrets (never on argv; else IGW_PROVISIONING_KEY):'),
    )
    .addHelpText(
      'after',
      `
Examples:
  igw tenants provision --name "Customer 4711" --region eu-west-1 --provisioning-key-file ~/.secrets/prov
  printf %s "$PROV" | igw tenants provision --name Child --idempotency-key signup-4711 --provisioning-key-stdin --json`,
    )
    .action(async (options: ProvisionOptions, command: Command) => {
      const key = await provisioningKey(context, options);
      const client = await context.anonymousClient(command);
      const tenant = await client.provisionTenant(
        {
          name: options.name,
          ...(options.region === undefined ? {} : { region: options.region }),
          ...(options.billingMode === undefined ? {} : { billingMode: options.billingMode }),
        },
        {
          provisioningKey: key,
          ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
        },
      );
      context.print(command, tenant, () => renderProvisioned(tenant));
      if (tenant.apiKey !== null) context.note(command, 'the API key is shown once: store it now');
    });
}
