/**
 * Secrets (provider keys, tokens, provisioning keys) come from stdin or a file, never from argv,
 * where `ps`, shell history and CI logs would show them. `refuseSecretsOnArgv` turns the obvious
 * attempts (`--key sk-...`, `--token ...`, a `tt_pat_...` anywhere) into a usage error that names
 * the right flag and never repeats the value.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from './errors.ts';
import type { ByteSource, TextSink } from './io.ts';

/** Flags that would carry a secret, and where the secret goes instead. */
const SECRET_FLAGS: ReadonlyMap<string, string> = new Map([
  ['--key', '--key-stdin or --key-file <path>'],
  ['--api-key', '--key-stdin or --key-file <path>'],
  ['--aws-secret-access-key', '--aws-secret-access-key-stdin or --aws-secret-access-key-file <path>'],
  ['--aws-session-token', '--aws-session-token-stdin or --aws-session-token-file <path>'],
  ['--service-account', '--service-account-file <path>'],
  ['--service-account-json', '--service-account-file <path>'],
  ['--gcp-service-account-json', '--service-account-file <path>'],
  ['--token', 'IGW_TOKEN, --token-file <path>, --token-stdin or the config file'],
  ['--pat', 'IGW_TOKEN, --token-file <path>, --token-stdin or the config file'],
  ['--provisioning-key', '--provisioning-key-file <path>, --provisioning-key-stdin or IGW_PROVISIONING_KEY'],
]);

/** The gateway's own secret prefixes: such a value on argv is a secret whatever flag carries it. */
const SECRET_PREFIX = /(?:^|=)(tt_(?:pat|prov|sk|ev)_)/;

/** The largest secret read (a service account file is a few KiB). */
const MAX_SECRET_BYTES = 1024 * 1024;

/** Throws a `UsageError` (exit 2) when argv carries a secret; the message never contains it. */
export function refuseSecretsOnArgv(argv: readonly string[]): void {
  for (const arg of argv) {
    const flag = arg.split('=', 1)[0] as string;
    const instead = SECRET_FLAGS.get(flag);
    if (instead !== undefined) {
      throw new UsageError(
        `${flag} is not accepted: secrets are never read from the command line (ps and shell history show it); use ${instead}`,
        'SECRET_ON_COMMAND_LINE',
      );
    }
    const prefix = SECRET_PREFIX.exec(arg)?.[1];
    if (prefix !== undefined) {
      throw new UsageError(
        `a secret (${prefix}...) is on the command line, where ps and shell history show it; pass it on stdin or in a file`,
        'SECRET_ON_COMMAND_LINE',
      );
    }
  }
}

/** Where one secret comes from: a `--x-stdin` switch and/or a `--x-file <path>` option. */
export interface SecretSource {
  /** What it is, for messages (`the provider key`). */
  what: string;
  stdin?: boolean | undefined;
  stdinFlag: string;
  file?: string | undefined;
  fileFlag: string;
}

/** Reads secrets of one run: stdin at most once, files as given; trims surrounding whitespace. */
export class SecretReader {
  readonly #stdin: ByteSource;
  readonly #stderr: TextSink;
  #stdinTakenBy: string | undefined;

  constructor(stdin: ByteSource, stderr: TextSink) {
    this.#stdin = stdin;
    this.#stderr = stderr;
  }

  /** The secret of a source, or undefined when neither flag was given. */
  async read(source: SecretSource): Promise<string | undefined> {
    if (source.stdin && source.file !== undefined) {
      throw new UsageError(`give ${source.what} with ${source.stdinFlag} or ${source.fileFlag}, not both`);
    }
    if (source.stdin) return this.fromStdin(source.what, source.stdinFlag);
    if (source.file !== undefined) return this.fromFile(source.what, source.file, source.fileFlag);
    return undefined;
  }

  /** All of stdin, trimmed; stdin can feed one secret per run. */
  async fromStdin(what: string, flag: string): Promise<string> {
    if (this.#stdinTakenBy !== undefined) {
      throw new UsageError(
        `stdin can carry one secret per run: ${this.#stdinTakenBy} and ${flag} both want it`,
      );
    }
    this.#stdinTakenBy = flag;
    if (this.#stdin.isTTY) this.#stderr.write(`igw: reading ${what} from the terminal; end it with Ctrl-D\n`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of this.#stdin) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
      size += bytes.length;
      if (size > MAX_SECRET_BYTES) throw new UsageError(`${flag}: stdin holds more than 1 MiB`);
      chunks.push(bytes);
    }
    return nonEmpty(Buffer.concat(chunks).toString('utf8'), `${flag}: nothing on stdin`);
  }

  /** A file's content, trimmed. */
  async fromFile(what: string, path: string, flag: string): Promise<string> {
    let text: string;
    try {
      const bytes = await readFile(path);
      if (bytes.length > MAX_SECRET_BYTES) throw new UsageError(`${flag}: ${path} is larger than 1 MiB`);
      text = bytes.toString('utf8');
    } catch (error) {
      if (error instanceof UsageError) throw error;
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new UsageError(`${flag}: cannot read ${what} from ${path} (${reason})`, 'FILE_UNREADABLE');
    }
    return nonEmpty(text, `${flag}: ${path} is empty`);
  }
}

function nonEmpty(text: string, message: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError(message);
  return trimmed;
}
