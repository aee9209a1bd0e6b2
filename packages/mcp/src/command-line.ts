/**
 * The command line of `igw-mcp`. The server is configured by the environment only; its arguments
 * are `--help` and `--version`, answered before the environment is read (a person trying the
 * command has no IGW_URL yet). Anything else is refused: a mistyped flag must not start a server
 * that sits waiting on stdin.
 */

/** What one command line asks for. */
export type McpCommand =
  | { action: 'serve' }
  | { action: 'help' }
  | { action: 'version' }
  | { action: 'refuse'; message: string };

/** The `--help` text (on stdout). */
export const USAGE = `Usage: igw-mcp [--help | --version]

The inference gateway's Model Context Protocol tool server on stdio: an MCP client starts it and
speaks JSON-RPC on its stdin and stdout. It is configured by the environment:

  IGW_URL               required  the control plane's base URL (standalone: http://127.0.0.1:8081)
  IGW_TOKEN             required  a personal access token of the tenant (tt_pat_...)
  IGW_ADMIN_TOKEN       optional  a platform-admin personal access token (tt_pat_...): the admin's tools
  IGW_PROVISIONING_KEY  optional  a provisioning key (tt_prov_...): provision_tenant
  IGW_TIMEOUT_MS        optional  the timeout of each control-plane call (default 60000)

Options:
  -h, --help     print this help and exit
  -V, --version  print the version and exit

Exit codes: 0 when the client closes stdin (or on SIGINT, SIGTERM), 1 on a failure, 2 on a usage
error or an invalid configuration (every problem named on stderr).
`;

const HELP_FLAGS: ReadonlySet<string> = new Set(['-h', '--help']);
const VERSION_FLAGS: ReadonlySet<string> = new Set(['-V', '--version']);

/** The action of `argv` (without `node` and the script); help wins over version, as in commander. */
export function parseCommandLine(argv: readonly string[]): McpCommand {
  if (argv.some((arg) => HELP_FLAGS.has(arg))) return { action: 'help' };
  if (argv.some((arg) => VERSION_FLAGS.has(arg))) return { action: 'version' };
  const [first] = argv;
  if (first === undefined) return { action: 'serve' };
  // The argument is not repeated: it could be a credential pasted in the wrong place.
  return {
    action: 'refuse',
    message: `unexpected argument${argv.length === 1 ? '' : 's'}: igw-mcp takes only --help and --version; it is configured by the environment (igw-mcp --help)`,
  };
}
