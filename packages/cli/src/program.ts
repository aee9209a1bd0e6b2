/**
 * The `igw` program: commander with every command group, and `run`, which executes one command
 * line against the given I/O and resolves with the exit code (0 ok, 1 the service failed, 2 usage,
 * 3 authentication). Commander never exits the process: its errors become exit code 2.
 */
import { Command, CommanderError, Option } from 'commander';
import { registerCacheCommands } from './commands/cache.ts';
import { registerConnectionCommands } from './commands/connections.ts';
import { registerOrgCommands } from './commands/orgs.ts';
import { registerRouteCommands } from './commands/routes.ts';
import { registerTenantCommands } from './commands/tenants.ts';
import { registerTokenCommands } from './commands/tokens.ts';
import { CliContext } from './context.ts';
import { EXIT_CODES, reportError } from './errors.ts';
import type { CliIo } from './io.ts';
import { renderError } from './output.ts';
import { refuseSecretsOnArgv } from './secrets.ts';
import { CLI_VERSION } from './version.ts';

const PROGRAM_HELP = `
Configuration (first found wins):
  control plane URL   --url, IGW_URL, "url" in the config file
  token (a PAT)       --token-file or --token-stdin, IGW_TOKEN, "token" in the config file
                      (never on the command line; a config file holding a token must be chmod 600)
  config file         --config, IGW_CONFIG, $XDG_CONFIG_HOME/igw/config.json, ~/.config/igw/config.json
                      JSON: { "url": "http://127.0.0.1:8081", "token": "tt_pat_..." }

Output: tables for people; --json prints the result as one JSON document for scripts. Errors go to
stderr as "igw: <message> (<code>)", or {"error":{"code","message"}} with --json.

Exit codes:
  0  ok
  1  the service answered with an error, could not be reached, or a Connection test failed
  2  usage error (unknown option, missing argument, a secret on the command line, bad configuration)
  3  authentication: no credential, or the service refused it (401/403, UNAUTHENTICATED, FORBIDDEN)

Examples:
  export IGW_URL=http://127.0.0.1:8081 IGW_TOKEN=tt_pat_...
  igw connections list
  printf %s "$OPENAI_API_KEY" | igw connections add openai --slug my-openai --key-stdin --daily-cap-usd 5
  igw tokens mint --parent-key key_abc --scope chat --ttl 600 --json
  igw connections add --help`;

/** The commander program of one run; actions write through `context`. */
export function buildProgram(context: CliContext): Command {
  const { io } = context;
  const program = new Command('igw')
    .description(
      "the inference gateway's command line: Connections, tokens, cache, model routes, tenants, organisations",
    )
    .version(CLI_VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // `run` prints commander's errors itself, in the CLI's one-line (or JSON) format.
      outputError: () => {},
      getOutHelpWidth: () => io.stdout.columns ?? 100,
      getErrHelpWidth: () => io.stderr.columns ?? 100,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .option('--url <url>', 'the control plane base URL (else IGW_URL, the config file)')
    .addOption(
      new Option('--token-file <path>', 'read the token (PAT) from a file (else IGW_TOKEN, the config file)'),
    )
    .addOption(new Option('--token-stdin', 'read the token (PAT) from stdin').conflicts('tokenFile'))
    .option('--config <path>', 'the config file (else IGW_CONFIG, ~/.config/igw/config.json)')
    .option('--json', 'print results as JSON for scripts (errors too, on stderr)')
    .addHelpText('after', PROGRAM_HELP);

  registerConnectionCommands(program, context);
  registerTokenCommands(program, context);
  registerCacheCommands(program, context);
  registerRouteCommands(program, context);
  registerTenantCommands(program, context);
  registerOrgCommands(program, context);
  return program;
}

/** Whether the command line asks for JSON (read before parsing, for errors of the parse itself). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * Runs one command line (`argv` without `node` and the script) and resolves with its exit code.
 * Never throws and never exits the process: bin.ts sets `process.exitCode`.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const context = new CliContext(io);
  try {
    refuseSecretsOnArgv(argv);
    await buildProgram(context).parseAsync([...argv], { from: 'user' });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help, --version, `igw help <command>`: printed, done. Help shown because a subcommand is
      // missing (`igw cache`) comes with exit code 1 from commander: a usage error here.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') {
        return EXIT_CODES.ok;
      }
      if (error.code === 'commander.help') return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    }
    const report = reportError(error);
    io.stderr.write(renderError(report, wantsJson(argv)));
    return report.exitCode;
  }
}
