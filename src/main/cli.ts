#!/usr/bin/env node
/**
 * The one entry point: `<cli> standalone|gateway|controlplane|operator`, and the one-shot
 * `ensure-secrets` the Helm chart's Job runs (ensure-secrets.ts). Reads settings once, starts the
 * role. Each role's modules are loaded only when it is the one started: a gateway pod
 * never loads the Kubernetes client (about 50 MB resident) the operator needs.
 * `<cli> operator release-finalizers` is a one-shot command (README, "Uninstall").
 */
import type { Settings } from '../config/settings.ts';
import { loadSettings, SettingsError } from '../config/settings.ts';
import type { Logger } from '../observability/logger.ts';
import { createLogger } from '../observability/logger.ts';
import { PROVIDER_NAMES } from '../providers/registry.ts';

type Role = (settings: Readonly<Settings>, log: Logger) => Promise<unknown>;

const ROLES: Record<string, () => Promise<Role>> = {
  standalone: async () => (await import('./standalone.ts')).runStandalone,
  gateway: async () => (await import('./gateway-role.ts')).runGateway,
  controlplane: async () => (await import('./controlplane-role.ts')).runControlPlane,
  operator: async () => (await import('./operator-role.ts')).runOperator,
  'ensure-secrets': async () => (await import('./ensure-secrets.ts')).runEnsureSecrets,
};

/** Commands that do one thing and exit, by their first two words. */
const COMMANDS: Record<string, () => Promise<() => Promise<void>>> = {
  'operator release-finalizers': async () => (await import('./release-finalizers.ts')).runReleaseFinalizers,
};

function usage(): string {
  return [
    `usage: inference-gateway <${Object.keys(ROLES).join('|')}>`,
    ...Object.keys(COMMANDS).map((command) => `       inference-gateway ${command}`),
    '',
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const role = argv[0] ?? 'standalone';
  if (role === 'help' || role === '--help' || role === '-h') {
    process.stdout.write(usage());
    return;
  }
  const command = argv.slice(0, 2).join(' ');
  if (Object.hasOwn(COMMANDS, command)) {
    await (await (COMMANDS[command] as () => Promise<() => Promise<void>>)())();
    return;
  }
  if (!Object.hasOwn(ROLES, role)) {
    process.stderr.write(`unknown role '${role}'\n${usage()}`);
    process.exit(2);
  }
  const settings = loadSettings(process.env, PROVIDER_NAMES);
  const log = createLogger(settings.logLevel, role);
  const run = await (ROLES[role] as () => Promise<Role>)();
  await run(settings, log);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof SettingsError) {
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
