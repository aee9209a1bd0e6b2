#!/usr/bin/env node
/**
 * The one entry point: `<cli> standalone|gateway`. Reads settings once, starts the role.
 */
import { loadSettings, SettingsError } from '../config/settings.ts';
import { createLogger } from '../observability/logger.ts';
import { PROVIDER_NAMES } from '../providers/registry.ts';
import { runControlPlane } from './controlplane-role.ts';
import { runGateway } from './gateway-role.ts';
import { runOperator } from './operator-role.ts';
import { runStandalone } from './standalone.ts';

const ROLES = {
  standalone: runStandalone,
  gateway: runGateway,
  controlplane: runControlPlane,
  operator: runOperator,
} as const;

function usage(): string {
  return `usage: inference-gateway <${Object.keys(ROLES).join('|')}>\n`;
}

async function main(argv: string[]): Promise<void> {
  const role = argv[0] ?? 'standalone';
  if (!Object.hasOwn(ROLES, role)) {
    process.stderr.write(`unknown role '${role}'\n${usage()}`);
    process.exit(2);
  }
  const settings = loadSettings(process.env, PROVIDER_NAMES);
  const log = createLogger(settings.logLevel, role);
  await ROLES[role as keyof typeof ROLES](settings, log);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof SettingsError) {
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
