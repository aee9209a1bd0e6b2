/**
 * The memory runtime store's durable-state file (`<STATE_DIR>/runtime.json`): its format versions,
 * the strict read at start, and the debounced, atomic write behind (temp file, fsync, rename, mode
 * 0600). Kept apart from the domains so that the file format has one owner: each domain hands over
 * its part of the state and takes it back on load, and never touches the file itself.
 */
import { readFileSync } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { toAuditEntry, toTokenRecord } from '../runtime-records.ts';
import type { AuditEntry, TokenRecord } from '../types.ts';

/** Version 1 files (balances and counters only) are still read; version 2 is written. */
const PERSIST_FORMAT_VERSION = 2;

export interface PersistedState {
  v: 1 | typeof PERSIST_FORMAT_VERSION;
  balances: Record<string, number>;
  counters: Record<string, number>;
  /** Counters with a TTL kept durable: name → value and expiry (ms). */
  expiringCounters?: Record<string, { value: number; expiresAt: number }>;
  tokens?: TokenRecord[];
  /** jti → the token's expiry (ms). */
  revokedTokens?: Record<string, number>;
  /** keyId → revoke-all time (ms). */
  revokedKeys?: Record<string, number>;
  /** tenantId → entries, oldest first. */
  audit?: Record<string, AuditEntry[]>;
}

/** What the domains hand over for a write: everything but the version, which the file owns. */
export type PersistedDomains = Omit<PersistedState, 'v'>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The state in `file`, or undefined when there is none yet. A corrupt file is an error, not an
 * empty state: starting from zero would silently reset balances.
 */
export function readPersistedState(file: string): PersistedState | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const state = JSON.parse(text) as Partial<PersistedState>;
  if (
    (state.v !== 1 && state.v !== PERSIST_FORMAT_VERSION) ||
    !isPlainObject(state.balances) ||
    !isPlainObject(state.counters)
  ) {
    throw new Error(`${file} is not a runtime store file of version 1 or ${PERSIST_FORMAT_VERSION}`);
  }
  const expiringCounters = state.expiringCounters ?? {};
  const revokedTokens = state.revokedTokens ?? {};
  const revokedKeys = state.revokedKeys ?? {};
  const tokens = state.tokens ?? [];
  const audit = state.audit ?? {};
  if (
    !isPlainObject(expiringCounters) ||
    !isPlainObject(revokedTokens) ||
    !isPlainObject(revokedKeys) ||
    !Array.isArray(tokens) ||
    !isPlainObject(audit)
  ) {
    throw new Error(
      `${file} is not a runtime store file: malformed expiring counters, tokens, revocations or audit log`,
    );
  }
  const integers = [
    ...Object.values(state.balances),
    ...Object.values(state.counters),
    ...Object.values(revokedTokens),
    ...Object.values(revokedKeys),
    ...Object.values(expiringCounters).flatMap((counter) =>
      isPlainObject(counter) ? [counter.value, counter.expiresAt] : [Number.NaN],
    ),
  ];
  for (const value of integers) {
    if (!Number.isSafeInteger(value)) throw new Error(`${file} holds a value that is not an integer`);
  }
  if (tokens.some((token) => toTokenRecord(token) === undefined)) {
    throw new Error(`${file} holds a malformed token record`);
  }
  for (const entries of Object.values(audit)) {
    if (!Array.isArray(entries) || entries.some((entry) => toAuditEntry(entry) === undefined)) {
      throw new Error(`${file} holds a malformed audit log`);
    }
  }
  return { ...(state as PersistedState), expiringCounters, tokens, revokedTokens, revokedKeys, audit };
}

export interface PersistedStateFileOptions {
  /** Delay between the first durable change and its write. */
  delayMs: number;
  /** Told about failed background writes (retried at the next change). */
  onError: (error: unknown) => void;
  /** The domains' durable state as of `now` (ms), expired entries left out; taken at write time. */
  collect: (now: number) => PersistedDomains;
}

/** Writes the durable state behind the changes that call `schedule`, and once more at `close`. */
export class PersistedStateFile {
  readonly #file: string;
  readonly #options: PersistedStateFileOptions;
  #timer: NodeJS.Timeout | undefined;
  #dirty = false;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(file: string, options: PersistedStateFileOptions) {
    this.#file = file;
    this.#options = options;
  }

  /** Marks the state changed; after close the change waits for another close. */
  schedule(): void {
    this.#dirty = true;
    // Debounced from the first change, not the last, so a steady stream of debits still gets written.
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#writing = this.#writing.then(() => this.#write()).catch(this.#options.onError);
    }, this.#options.delayMs);
  }

  /** Stops the timer and writes any pending change; rejects if that write fails. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#writing;
    if (this.#dirty) await this.#write();
  }

  async #write(): Promise<void> {
    if (!this.#dirty) return;
    this.#dirty = false;
    const file = this.#file;
    const state: PersistedState = { v: PERSIST_FORMAT_VERSION, ...this.#options.collect(Date.now()) };
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      const handle = await open(temporary, 'w', 0o600);
      try {
        // A temp file left by a crash keeps its old mode when reopened; set it again.
        await handle.chmod(0o600);
        await handle.writeFile(JSON.stringify(state));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    } catch (error) {
      this.#dirty = true;
      await unlink(temporary).catch(() => {});
      throw error;
    }
  }
}
