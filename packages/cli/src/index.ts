/**
 * @inference-gateway/cli: `igw`, the inference gateway's command line, built on
 * `@inference-gateway/admin`. The executable is `igw` (dist/bin.js); `run` executes one command
 * line in-process (for embedding and tests) and resolves with the exit code.
 */

export {
  type ConfigFile,
  type ConfigFlags,
  locateConfigFile,
  type ResolvedConfig,
  readConfigFile,
  resolveConfig,
} from './config.ts';
export { CliContext, type GlobalOptions } from './context.ts';
export {
  CliError,
  type ErrorReport,
  EXIT_CODES,
  type ExitCode,
  MissingCredentialError,
  reportError,
  UsageError,
} from './errors.ts';
export type { ByteSource, CliIo, TextSink } from './io.ts';
export { buildProgram, run } from './program.ts';
export { CLI_VERSION } from './version.ts';
