/**
 * A runtime store assembled from one implementation of each domain (counters, revocations, audit
 * log, response cache, locks, stored responses). The memory and Redis stores differ in their
 * domains and in their lifecycle (ping, close), not in how a call reaches its domain, so that
 * routing is written once here rather than in each store.
 */
import type {
  RuntimeAuditLog,
  RuntimeCounters,
  RuntimeLocks,
  RuntimeResponseCache,
  RuntimeRevocations,
  RuntimeSemanticIndex,
  RuntimeStore,
  RuntimeStoredResponses,
  RuntimeUsage,
} from './types.ts';

/** A method's arguments as RuntimeStore declares them, passed on as given. */
type Args<M extends keyof RuntimeStore> = Parameters<RuntimeStore[M]>;

export interface RuntimeStoreDomains {
  counters: RuntimeCounters;
  revocations: RuntimeRevocations;
  auditLog: RuntimeAuditLog;
  cache: RuntimeResponseCache;
  locks: RuntimeLocks;
  semantic: RuntimeSemanticIndex;
  usage: RuntimeUsage;
  responses: RuntimeStoredResponses;
}

export abstract class ComposedRuntimeStore implements RuntimeStore {
  readonly #counters: RuntimeCounters;
  readonly #revocations: RuntimeRevocations;
  readonly #auditLog: RuntimeAuditLog;
  readonly #cache: RuntimeResponseCache;
  readonly #locks: RuntimeLocks;
  readonly #semantic: RuntimeSemanticIndex;
  readonly #usage: RuntimeUsage;
  readonly #responses: RuntimeStoredResponses;

  protected constructor(domains: RuntimeStoreDomains) {
    this.#counters = domains.counters;
    this.#revocations = domains.revocations;
    this.#auditLog = domains.auditLog;
    this.#cache = domains.cache;
    this.#locks = domains.locks;
    this.#semantic = domains.semantic;
    this.#usage = domains.usage;
    this.#responses = domains.responses;
  }

  putStoredResponse(...args: Args<'putStoredResponse'>) {
    return this.#responses.putStoredResponse(...args);
  }

  getStoredResponses(...args: Args<'getStoredResponses'>) {
    return this.#responses.getStoredResponses(...args);
  }

  deleteStoredResponse(...args: Args<'deleteStoredResponse'>) {
    return this.#responses.deleteStoredResponse(...args);
  }

  recordUsage(...args: Args<'recordUsage'>) {
    return this.#usage.recordUsage(...args);
  }

  readUsage(...args: Args<'readUsage'>) {
    return this.#usage.readUsage(...args);
  }

  abstract ping(): Promise<boolean>;
  abstract close(): Promise<void>;

  getBalance(...args: Args<'getBalance'>) {
    return this.#counters.getBalance(...args);
  }

  initBalance(...args: Args<'initBalance'>) {
    return this.#counters.initBalance(...args);
  }

  adjustBalance(...args: Args<'adjustBalance'>) {
    return this.#counters.adjustBalance(...args);
  }

  incrementCounter(...args: Args<'incrementCounter'>) {
    return this.#counters.incrementCounter(...args);
  }

  applySpendOnce(...args: Args<'applySpendOnce'>) {
    return this.#counters.applySpendOnce(...args);
  }

  getCounter(...args: Args<'getCounter'>) {
    return this.#counters.getCounter(...args);
  }

  reserveWithinCap(...args: Args<'reserveWithinCap'>) {
    return this.#counters.reserveWithinCap(...args);
  }

  reserveUpToCap(...args: Args<'reserveUpToCap'>) {
    return this.#counters.reserveUpToCap(...args);
  }

  recordToken(...args: Args<'recordToken'>) {
    return this.#revocations.recordToken(...args);
  }

  getToken(...args: Args<'getToken'>) {
    return this.#revocations.getToken(...args);
  }

  revokeToken(...args: Args<'revokeToken'>) {
    return this.#revocations.revokeToken(...args);
  }

  revokeTokensForKey(...args: Args<'revokeTokensForKey'>) {
    return this.#revocations.revokeTokensForKey(...args);
  }

  loadRevocations(...args: Args<'loadRevocations'>) {
    return this.#revocations.loadRevocations(...args);
  }

  isTokenRevoked(...args: Args<'isTokenRevoked'>) {
    return this.#revocations.isTokenRevoked(...args);
  }

  keyRevokedAt(...args: Args<'keyRevokedAt'>) {
    return this.#revocations.keyRevokedAt(...args);
  }

  watchRevocations(...args: Args<'watchRevocations'>) {
    return this.#revocations.watchRevocations(...args);
  }

  appendAudit(...args: Args<'appendAudit'>) {
    return this.#auditLog.appendAudit(...args);
  }

  listAudit(...args: Args<'listAudit'>) {
    return this.#auditLog.listAudit(...args);
  }

  getCacheEntry(...args: Args<'getCacheEntry'>) {
    return this.#cache.getCacheEntry(...args);
  }

  setCacheEntry(...args: Args<'setCacheEntry'>) {
    return this.#cache.setCacheEntry(...args);
  }

  loadCacheScope(...args: Args<'loadCacheScope'>) {
    return this.#cache.loadCacheScope(...args);
  }

  purgeCache(...args: Args<'purgeCache'>) {
    return this.#cache.purgeCache(...args);
  }

  invalidateCacheTags(...args: Args<'invalidateCacheTags'>) {
    return this.#cache.invalidateCacheTags(...args);
  }

  watchCacheInvalidations(...args: Args<'watchCacheInvalidations'>) {
    return this.#cache.watchCacheInvalidations(...args);
  }

  acquireLock(...args: Args<'acquireLock'>) {
    return this.#locks.acquireLock(...args);
  }

  releaseLock(...args: Args<'releaseLock'>) {
    return this.#locks.releaseLock(...args);
  }

  addSemanticCandidate(...args: Args<'addSemanticCandidate'>) {
    return this.#semantic.addSemanticCandidate(...args);
  }

  scanSemanticCandidates(...args: Args<'scanSemanticCandidates'>) {
    return this.#semantic.scanSemanticCandidates(...args);
  }
}
