#!/usr/bin/env node
/**
 * igw-mcp: the gateway's MCP tool server on stdio. Configuration comes from the environment (see
 * settings.ts); stdout carries the protocol only, so everything else goes to stderr. The process
 * ends when the client closes stdin, or on SIGINT/SIGTERM. `--help` and `--version` answer on
 * stdout and exit without serving (command-line.ts).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parseCommandLine, USAGE } from './command-line.ts';
import { createGatewayMcpServer } from './server.ts';
import { readSettings, SettingsError, serverOptionsFromSettings } from './settings.ts';
import { MCP_SERVER_VERSION } from './version.ts';

const log = (message: string): void => {
  process.stderr.write(`igw-mcp: ${message}\n`);
};

// A stray console.log would corrupt the JSON-RPC stream on stdout.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

async function main(): Promise<void> {
  const command = parseCommandLine(process.argv.slice(2));
  if (command.action === 'help' || command.action === 'version') {
    process.stdout.write(command.action === 'help' ? USAGE : `${MCP_SERVER_VERSION}\n`);
    return;
  }
  if (command.action === 'refuse') {
    log(command.message);
    process.exitCode = 2;
    return;
  }
  let settings: ReturnType<typeof readSettings>;
  try {
    settings = readSettings(process.env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    log(error.message);
    process.exitCode = 2;
    return;
  }
  const server = createGatewayMcpServer(serverOptionsFromSettings(settings));
  let closing: Promise<void> | undefined;
  const shutdown = () => {
    closing ??= server.close().catch((error: unknown) => log(`close failed: ${String(error)}`));
    return closing;
  };
  process.stdin.once('end', shutdown);
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  await server.connect(new StdioServerTransport());
  const extras = [
    ...(settings.adminToken === undefined ? [] : ['platform admin tools']),
    ...(settings.provisioningKey === undefined ? [] : ['provisioning']),
  ];
  log(
    `${MCP_SERVER_VERSION} serving ${settings.url} on stdio${extras.length === 0 ? '' : ` with ${extras.join(' and ')}`}`,
  );
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
