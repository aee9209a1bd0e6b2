/**
 * The in-memory runtime store (standalone mode, tests). Balances and counters without a TTL are
 * durable: with `persistFile` they are loaded at construction and written behind (debounced,
 * atomically: temp file, fsync, rename, mode 0600). Counters with a TTL are rate and spend windows:
 * memory only, expired lazily on read and by an unref'd sweep.
 */
import { readFileSync } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RuntimeStore } from './types.ts';

export interface MemoryRuntimeStoreOptions {
  /** Where durable records are kept (e.g. `<STATE_DIR>/runtime.json`); absent: memory only. */
  persistFile?: string;
  /** Delay between a durable change and its write; default 100 ms. */
  persistDelayMs?: number;
  /** How often expired counters are swept; default 60 s. */
  sweepIntervalMs?: number;
  /** Told about failed background writes (retried at the next change and on close). */
  onError?: (error: unknown) => void;
}

const PERSIST_FORMAT_VERSION = 1;

interface PersistedState {
  v: typeof PERSIST_FORMAT_VERSION;
  balances: Record<string, number>;
  counters: Record<string, number>;
}

interface ExpiringCounter {
  value: number;
  expiresAt: number;
}

export function assertSafeInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be a safe integer, got ${value}`);
}

export function assertTtlSeconds(ttlSeconds: number | undefined): void {
  if (ttlSeconds !== undefined && (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0)) {
    throw new TypeError(`ttlSeconds must be a positive integer, got ${ttlSeconds}`);
  }
}

function readPersistedState(file: string): PersistedState | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // A corrupt file is an error, not an empty state: starting from zero would silently reset balances.
  const state = JSON.parse(text) as Partial<PersistedState>;
  if (
    state.v !== PERSIST_FORMAT_VERSION ||
    typeof state.balances !== 'object' ||
    typeof state.counters !== 'object'
  ) {
    throw new Error(`${file} is not a runtime store file of version ${PERSIST_FORMAT_VERSION}`);
  }
  for (const value of [...Object.values(state.balances), ...Object.values(state.counters)]) {
    if (!Number.isSafeInteger(value)) throw new Error(`${file} holds a value that is not an integer`);
  }
  return state as PersistedState;
}

export class MemoryRuntimeStore implements RuntimeStore {
  readonly #balances = new Map<string, number>();
  readonly #durableCounters = new Map<string, number>();
  readonly #expiringCounters = new Map<string, ExpiringCounter>();
  readonly #persistFile: string | undefined;
  readonly #persistDelayMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #sweepTimer: NodeJS.Timeout;
  #persistTimer: NodeJS.Timeout | undefined;
  #dirty = false;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  /** Reads `persistFile` synchronously (once, at start) when given; throws if it is corrupt. */
  constructor(options: MemoryRuntimeStoreOptions = {}) {
    this.#persistFile = options.persistFile;
    this.#persistDelayMs = options.persistDelayMs ?? 100;
    this.#onError = options.onError ?? (() => {});
    if (this.#persistFile !== undefined) {
      const state = readPersistedState(this.#persistFile);
      if (state !== undefined) {
        for (const [tenantId, micros] of Object.entries(state.balances)) this.#balances.set(tenantId, micros);
        for (const [name, value] of Object.entries(state.counters)) this.#durableCounters.set(name, value);
      }
    }
    this.#sweepTimer = setInterval(() => this.#sweepExpired(), options.sweepIntervalMs ?? 60_000);
    this.#sweepTimer.unref();
  }

  /** The constructor's asynchronous twin, for composition roots that await their stores. */
  static async open(options: MemoryRuntimeStoreOptions = {}): Promise<MemoryRuntimeStore> {
    return new MemoryRuntimeStore(options);
  }

  async getBalance(tenantId: string): Promise<number | undefined> {
    return this.#balances.get(tenantId);
  }

  async initBalance(tenantId: string, micros: number): Promise<boolean> {
    assertSafeInteger('micros', micros);
    if (this.#balances.has(tenantId)) return false;
    this.#balances.set(tenantId, micros);
    this.#schedulePersist();
    return true;
  }

  async adjustBalance(tenantId: string, deltaMicros: number): Promise<number> {
    assertSafeInteger('deltaMicros', deltaMicros);
    const balance = (this.#balances.get(tenantId) ?? 0) + deltaMicros;
    this.#balances.set(tenantId, balance);
    this.#schedulePersist();
    return balance;
  }

  /**
   * Mirrors Redis INCRBY + EXPIRE NX: the TTL is set when the counter has none (usually at
   * creation) and is kept by later increments, with or without a TTL argument.
   */
  async incrementCounter(name: string, by: number, ttlSeconds?: number): Promise<number> {
    assertSafeInteger('by', by);
    assertTtlSeconds(ttlSeconds);
    const expiring = this.#liveExpiringCounter(name);
    if (expiring !== undefined) {
      expiring.value += by;
      return expiring.value;
    }
    const value = (this.#durableCounters.get(name) ?? 0) + by;
    if (ttlSeconds === undefined) {
      this.#durableCounters.set(name, value);
    } else {
      if (this.#durableCounters.delete(name)) this.#schedulePersist();
      this.#expiringCounters.set(name, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
      return value;
    }
    this.#schedulePersist();
    return value;
  }

  async getCounter(name: string): Promise<number> {
    return this.#liveExpiringCounter(name)?.value ?? this.#durableCounters.get(name) ?? 0;
  }

  async ping(): Promise<boolean> {
    return !this.#closed;
  }

  /** Stops the timers and writes any pending durable change; rejects if that write fails. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    clearTimeout(this.#persistTimer);
    this.#persistTimer = undefined;
    await this.#writing;
    if (this.#dirty) await this.#persist();
  }

  #liveExpiringCounter(name: string): ExpiringCounter | undefined {
    const counter = this.#expiringCounters.get(name);
    if (counter === undefined) return undefined;
    if (counter.expiresAt > Date.now()) return counter;
    this.#expiringCounters.delete(name);
    return undefined;
  }

  #sweepExpired(): void {
    const now = Date.now();
    for (const [name, counter] of this.#expiringCounters) {
      if (counter.expiresAt <= now) this.#expiringCounters.delete(name);
    }
  }

  #schedulePersist(): void {
    if (this.#persistFile === undefined) return;
    this.#dirty = true;
    // Debounced from the first change, not the last, so a steady stream of debits still gets written.
    if (this.#persistTimer !== undefined || this.#closed) return;
    this.#persistTimer = setTimeout(() => {
      this.#persistTimer = undefined;
      this.#writing = this.#writing.then(() => this.#persist()).catch(this.#onError);
    }, this.#persistDelayMs);
  }

  async #persist(): Promise<void> {
    const file = this.#persistFile;
    if (file === undefined || !this.#dirty) return;
    this.#dirty = false;
    const state: PersistedState = {
      v: PERSIST_FORMAT_VERSION,
      balances: Object.fromEntries(this.#balances),
      counters: Object.fromEntries(this.#durableCounters),
    };
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
