/**
 * Exit codes and how every failure maps to one. `igw` exits with:
 *
 * - 0: done.
 * - 1: the service answered with an error (an `AdminApiError` other than an authentication or
 *   permission refusal), the service could not be reached, or a Connection test failed.
 * - 2: a usage error: commander's own (unknown option, missing argument, unknown command), a secret
 *   given on the command line, an unreadable file, an invalid amount, a bad configuration.
 * - 3: authentication: no credential, or the service refused it (HTTP 401/403, `UNAUTHENTICATED`,
 *   `FORBIDDEN`, `TENANT_SUSPENDED`).
 */
import { AdminError, UsdAmountError } from '@inference-gateway/admin';
import { CommanderError } from 'commander';

/** The documented exit codes. */
export const EXIT_CODES = { ok: 0, failure: 1, usage: 2, auth: 3 } as const;
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Codes of the service that mean "who you are" or "what you may do", not "what you asked". */
const AUTH_ERROR_CODES: ReadonlySet<string> = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'TENANT_SUSPENDED']);

/** A failure of the CLI itself, with a stable `code` and the exit code it ends the run with. */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;

  constructor(message: string, details: { code: string; exitCode: ExitCode }) {
    super(message);
    this.name = 'CliError';
    this.code = details.code;
    this.exitCode = details.exitCode;
  }
}

/** A usage error (exit 2): the command line or the configuration cannot be run as given. */
export class UsageError extends CliError {
  constructor(message: string, code = 'USAGE_ERROR') {
    super(message, { code, exitCode: EXIT_CODES.usage });
    this.name = 'UsageError';
  }
}

/** No credential to authenticate with (exit 3). */
export class MissingCredentialError extends CliError {
  constructor(message: string, code = 'NO_CREDENTIAL') {
    super(message, { code, exitCode: EXIT_CODES.auth });
    this.name = 'MissingCredentialError';
  }
}

/** What a failed run reports: its exit code and the one-line error (`igw: <message> (<code>)`). */
export interface ErrorReport {
  exitCode: ExitCode;
  code: string;
  message: string;
}

/** Commander's messages start with `error: ` and may add a suggestion on a second line. */
function commanderMessage(error: CommanderError): string {
  return error.message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** The exit code, code and message of any failure of a run. */
export function reportError(error: unknown): ErrorReport {
  if (error instanceof CliError)
    return { exitCode: error.exitCode, code: error.code, message: error.message };
  if (error instanceof CommanderError) {
    return { exitCode: EXIT_CODES.usage, code: 'USAGE_ERROR', message: commanderMessage(error) };
  }
  if (error instanceof UsdAmountError) {
    return { exitCode: EXIT_CODES.usage, code: 'USAGE_ERROR', message: error.message };
  }
  if (error instanceof AdminError) {
    const auth = AUTH_ERROR_CODES.has(error.code) || error.status === 401 || error.status === 403;
    return {
      exitCode: auth ? EXIT_CODES.auth : EXIT_CODES.failure,
      code: error.code,
      message: error.message,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: EXIT_CODES.failure, code: 'INTERNAL_ERROR', message };
}
