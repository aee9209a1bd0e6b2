/**
 * The in-memory runtime store (standalone mode, tests), assembled from one module per domain under
 * memory-runtime/: counters, revocations, audit log, response cache, locks, stored responses.
 * Balances, counters without a TTL, counters with a TTL kept `durable` (spend, with its expiry),
 * minted tokens, revocations and the audit log are durable: with `persistFile` they are loaded at
 * construction and written behind by the state file (memory-runtime/persistence.ts). Rate windows,
 * the whole cache and the stored responses are memory only. Everything that expires is dropped lazily on
 * read, by an unref'd sweep, and on load.
 */

import { ComposedRuntimeStore } from './composed-runtime-store.ts';
import { DEFAULT_MAX_CACHE_BYTES } from './memory-cache.ts';
import { MemoryAuditLog } from './memory-runtime/audit-log.ts';
import { MemoryCounters } from './memory-runtime/counters.ts';
import { MemoryLocks } from './memory-runtime/locks.ts';
import { PersistedStateFile, readPersistedState } from './memory-runtime/persistence.ts';
import { MemoryResponseCache } from './memory-runtime/response-cache.ts';
import { MemoryRevocations } from './memory-runtime/revocations.ts';
import { MemorySemanticIndex } from './memory-runtime/semantic-index.ts';
import {
  DEFAULT_MAX_STORED_RESPONSE_BYTES,
  MemoryStoredResponses,
} from './memory-runtime/stored-responses.ts';
import { MemoryUsage } from './memory-runtime/usage.ts';
import { assertAuditLimit } from './runtime-records.ts';
import { AUDIT_LOG_LIMIT, type RuntimeStore } from './types.ts';

export interface MemoryRuntimeStoreOptions {
  /** Where durable records are kept (e.g. `<STATE_DIR>/runtime.json`); absent: memory only. */
  persistFile?: string;
  /** Delay between a durable change and its write; default 100 ms. */
  persistDelayMs?: number;
  /** How often expired counters, tokens, revocations, cache entries and locks are swept; default 60 s. */
  sweepIntervalMs?: number;
  /** Told about failed background writes (retried at the next change) and feed listeners that threw. */
  onError?: (error: unknown) => void;
  /** Audit entries kept per tenant; default AUDIT_LOG_LIMIT (smaller in tests). */
  auditLimit?: number;
  /**
   * The cache's budget, keys and values counted at two bytes a character; the least recently
   * used entries are evicted beyond it. Default 256 MiB.
   */
  maxCacheBytes?: number;
  /** The semantic index's budget in bytes (records of 424 bytes with the default model); default a quarter of the cache's. */
  maxSemanticBytes?: number;
  /** The stored responses' budget (least recently used go beyond it); default 64 MiB. */
  maxStoredResponseBytes?: number;
}

export class MemoryRuntimeStore extends ComposedRuntimeStore implements RuntimeStore {
  readonly #counters: MemoryCounters;
  readonly #revocations: MemoryRevocations;
  readonly #cache: MemoryResponseCache;
  readonly #locks: MemoryLocks;
  readonly #semantic: MemorySemanticIndex;
  readonly #usage: MemoryUsage;
  readonly #responses: MemoryStoredResponses;
  readonly #stateFile: PersistedStateFile | undefined;
  readonly #sweepTimer: NodeJS.Timeout;
  #closed = false;

  /** Reads `persistFile` synchronously (once, at start) when given; throws if it is corrupt. */
  constructor(options: MemoryRuntimeStoreOptions = {}) {
    const onError = options.onError ?? (() => {});
    const auditLimit = options.auditLimit ?? AUDIT_LOG_LIMIT;
    assertAuditLimit(auditLimit);
    const cache = new MemoryResponseCache(options.maxCacheBytes ?? DEFAULT_MAX_CACHE_BYTES, onError);
    // The domains tell the state file about their durable changes; it is opened once they are loaded.
    let stateFile: PersistedStateFile | undefined;
    const onDurableChange = () => stateFile?.schedule();
    const counters = new MemoryCounters(onDurableChange);
    const revocations = new MemoryRevocations(onDurableChange, onError);
    const auditLog = new MemoryAuditLog(auditLimit, onDurableChange);
    const locks = new MemoryLocks();
    const semantic = new MemorySemanticIndex(
      options.maxSemanticBytes ?? Math.floor((options.maxCacheBytes ?? DEFAULT_MAX_CACHE_BYTES) / 4),
    );
    if (options.persistFile !== undefined) {
      const state = readPersistedState(options.persistFile);
      if (state !== undefined) {
        counters.restore(state);
        revocations.restore(state);
        auditLog.restore(state);
      }
      stateFile = new PersistedStateFile(options.persistFile, {
        delayMs: options.persistDelayMs ?? 100,
        onError,
        collect: (now) => ({
          ...counters.persisted(now),
          ...revocations.persisted(now),
          ...auditLog.persisted(),
        }),
      });
    }
    const usage = new MemoryUsage();
    const responses = new MemoryStoredResponses(
      options.maxStoredResponseBytes ?? DEFAULT_MAX_STORED_RESPONSE_BYTES,
    );
    super({ counters, revocations, auditLog, cache, locks, semantic, usage, responses });
    this.#usage = usage;
    this.#responses = responses;
    this.#counters = counters;
    this.#revocations = revocations;
    this.#cache = cache;
    this.#locks = locks;
    this.#semantic = semantic;
    this.#stateFile = stateFile;
    this.#sweepTimer = setInterval(() => this.#sweep(), options.sweepIntervalMs ?? 60_000);
    this.#sweepTimer.unref();
  }

  /** The constructor's asynchronous twin, for composition roots that await their stores. */
  static async open(options: MemoryRuntimeStoreOptions = {}): Promise<MemoryRuntimeStore> {
    return new MemoryRuntimeStore(options);
  }

  override async ping(): Promise<boolean> {
    return !this.#closed;
  }

  /** Stops the timers and writes any pending durable change; rejects if that write fails. */
  override async close(): Promise<void> {
    this.#closed = true;
    this.#revocations.close();
    this.#cache.close();
    this.#locks.close();
    this.#responses.clear();
    clearInterval(this.#sweepTimer);
    await this.#stateFile?.close();
  }

  /** The timer's sweep, of every domain: the only one that walks the cache and the locks. */
  #sweep(): void {
    const now = Date.now();
    this.#cache.sweep(now);
    this.#locks.sweep(now);
    this.#semantic.sweep(now);
    this.#counters.sweep(now);
    this.#revocations.sweep(now);
    this.#usage.sweep(now);
    this.#responses.sweep(now);
  }
}
