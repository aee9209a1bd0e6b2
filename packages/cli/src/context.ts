/**
 * One run's shared state, handed to every command module: the I/O, the secret reader (stdin is
 * read at most once), the global flags, the SDK clients and the exit code an action may set.
 */
import { AdminClient } from '@inference-gateway/admin';
import type { Command } from 'commander';
import { type ConfigFlags, resolveConfig } from './config.ts';
import { EXIT_CODES, type ExitCode } from './errors.ts';
import type { CliIo } from './io.ts';
import { renderJson } from './output.ts';
import { SecretReader } from './secrets.ts';

/** The options every command accepts (defined on the program). */
export interface GlobalOptions extends ConfigFlags {
  json?: boolean;
}

export class CliContext {
  readonly io: CliIo;
  readonly secrets: SecretReader;
  /** The run's exit code when no error ends it (an action sets 1 for a failed Connection test). */
  exitCode: ExitCode = EXIT_CODES.ok;

  constructor(io: CliIo) {
    this.io = io;
    this.secrets = new SecretReader(io.stdin, io.stderr);
  }

  /** The program's options as seen from a (sub)command. */
  globals(command: Command): GlobalOptions {
    return command.optsWithGlobals<GlobalOptions>();
  }

  /** A client of the tenant's `/graphql`, with the token (exit 3 without one). */
  async adminClient(command: Command): Promise<AdminClient> {
    const config = await resolveConfig(this.globals(command), this.#environment(), true);
    return new AdminClient({ url: config.url, token: config.token, fetch: this.io.fetch });
  }

  /** A client without a token: `createOrganization` (anonymous) and `provisionTenant` (its own key). */
  async anonymousClient(command: Command): Promise<AdminClient> {
    const config = await resolveConfig(this.globals(command), this.#environment(), false);
    return new AdminClient({ url: config.url, fetch: this.io.fetch });
  }

  /** Prints a result: as JSON with `--json`, else what `human` renders. */
  print(command: Command, result: unknown, human: () => string): void {
    this.io.stdout.write(this.globals(command).json ? renderJson(result) : human());
  }

  /** A hint for people (stderr, human mode only): never part of what a script parses. */
  note(command: Command, text: string): void {
    if (!this.globals(command).json) this.io.stderr.write(`igw: ${text}\n`);
  }

  #environment() {
    return { env: this.io.env, homeDir: this.io.homeDir, secrets: this.secrets };
  }
}
