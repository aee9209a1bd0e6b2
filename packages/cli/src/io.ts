/**
 * What a run of the CLI reads and writes. `bin.ts` passes the process's streams and environment;
 * tests pass their own (and a fake `fetch`, handed through to the SDK).
 */
import type { FetchLike } from '@inference-gateway/admin';

/** A stream the CLI writes text to. */
export interface TextSink {
  write(text: string): unknown;
  /** Whether a terminal is attached (a secret typed there is echoed: `igw` says how to end it). */
  isTTY?: boolean;
  /** The terminal's width, for help text. */
  columns?: number;
}

/** A stream the CLI reads a secret from (stdin). */
export interface ByteSource extends AsyncIterable<string | Uint8Array> {
  isTTY?: boolean;
}

/** Everything one run touches outside its arguments. */
export interface CliIo {
  stdin: ByteSource;
  stdout: TextSink;
  stderr: TextSink;
  /** The environment: IGW_URL, IGW_TOKEN, IGW_CONFIG, IGW_PROVISIONING_KEY, XDG_CONFIG_HOME, HOME. */
  env: Readonly<Record<string, string | undefined>>;
  /** The `fetch` the SDK uses; default: the global one. */
  fetch?: FetchLike;
  /** The home directory for the default config file; default: `HOME`, then the OS's. */
  homeDir?: string;
}
