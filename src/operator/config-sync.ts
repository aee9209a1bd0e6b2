/**
 * Writing desired records to the config store, and the standalone reconcile loop. The operator's
 * per-kind controllers will reuse `syncConfigStore` for full resyncs; standalone runs
 * LocalReconciler, which rebuilds everything from the resources on every change (a handful of
 * objects, so a full sync is cheaper to reason about than per-object bookkeeping).
 */
import { canonicalJson } from '../auth/secret-box.ts';
import type { DesiredConfigProblem } from '../resources/desired-records.ts';
import type { AnyResource, ResourceEvent, ResourcesClient } from '../resources/types.ts';
import { CONFIG_KINDS, type ConfigKind, type ConfigRecordMap } from '../stores/records.ts';
import type { ConfigSnapshot, ConfigStore } from '../stores/types.ts';
import { type CredentialPolicy, computeDesiredConfig, type SecretSealing } from './desired-config.ts';

export interface SyncCounts {
  put: number;
  deleted: number;
  unchanged: number;
}

export interface SyncConfigOptions {
  /** The epoch marker set after the sync (default: the current time, ISO 8601). */
  epoch?: string;
}

/**
 * The part of a record that decides "changed": its JSON, without a connection's sealedSecret,
 * which differs on every seal (random IV); its secretDigest stands for the material instead.
 */
function comparable(kind: ConfigKind, record: object): string {
  if (kind !== 'connection') return canonicalJson(record);
  const { sealedSecret: _ignored, ...rest } = record as ConfigRecordMap['connection'];
  return canonicalJson(rest);
}

/** Whether two records of a kind are the same for the gateway (a connection's seal aside). */
export function recordsEqual(kind: ConfigKind, left: object, right: object): boolean {
  return comparable(kind, left) === comparable(kind, right);
}

/**
 * Makes the store hold exactly `desired`: puts what is new or different, deletes what is not
 * desired, leaves the rest alone (no change announced), then sets the epoch marker.
 */
export async function syncConfigStore(
  store: ConfigStore,
  desired: ConfigSnapshot,
  options: SyncConfigOptions = {},
): Promise<SyncCounts> {
  const current = await store.snapshot();
  const counts: SyncCounts = { put: 0, deleted: 0, unchanged: 0 };
  const puts: Promise<void>[] = [];
  // Tenants before the records that point at them, so a reader never sees a dangling tenantId.
  for (const kind of CONFIG_KINDS) {
    const existing = current[kind] as Map<string, object>;
    for (const [id, record] of desired[kind] as Map<string, ConfigRecordMap[typeof kind]>) {
      const stored = existing.get(id);
      if (stored !== undefined && comparable(kind, stored) === comparable(kind, record)) {
        counts.unchanged += 1;
        continue;
      }
      counts.put += 1;
      puts.push(store.put(kind, id, record));
    }
  }
  await Promise.all(puts);
  const deletes: Promise<void>[] = [];
  // Dependants first, tenants last: the reverse of the puts.
  for (const kind of [...CONFIG_KINDS].reverse()) {
    for (const id of current[kind].keys()) {
      if (desired[kind].has(id)) continue;
      counts.deleted += 1;
      deletes.push(store.delete(kind, id));
    }
  }
  await Promise.all(deletes);
  await store.setEpoch(options.epoch ?? new Date().toISOString());
  return counts;
}

export interface ReconcilerLog {
  warn(details: object, message: string): void;
  info?(details: object, message: string): void;
  error?(details: object, message: string): void;
}

export interface LocalReconcilerOptions {
  resources: ResourcesClient;
  store: ConfigStore;
  sealing: SecretSealing;
  /** Which tenant may hold an admin PAT (standalone: the first start's tenant unless PLATFORM_TENANT says). */
  credentialPolicy?: CredentialPolicy;
  log?: ReconcilerLog;
  /** How often to check that the store still has its epoch marker (a wiped store is rebuilt). */
  epochCheckIntervalMs?: number;
  /** First retry delay after a failed sync; doubles up to retryMaxMs. */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/** Pending `synced()` calls. */
interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Keeps the config store equal to what the resources say: a full sync at start, again after every
 * resource event (at most one in flight, one more queued), and again when the store lost its
 * epoch. Failures are logged and retried with backoff; nothing is thrown into the event loop.
 */
export class LocalReconciler {
  readonly #resources: ResourcesClient;
  readonly #store: ConfigStore;
  readonly #sealing: SecretSealing;
  readonly #credentialPolicy: CredentialPolicy;
  readonly #log: ReconcilerLog;
  readonly #epochCheckIntervalMs: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  /** Generation of each custom resource as last seen: a status-only change needs no sync. */
  readonly #generations = new Map<string, number>();
  #waiters: Waiter[] = [];
  #running: Promise<void> | undefined;
  #pending = false;
  #failures = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #epochTimer: NodeJS.Timeout | undefined;
  #unwatch: (() => void) | undefined;
  #stopped = false;
  #problems: DesiredConfigProblem[] = [];
  #reportedProblems = new Set<string>();
  #lastCounts: SyncCounts | undefined;

  constructor(options: LocalReconcilerOptions) {
    this.#resources = options.resources;
    this.#store = options.store;
    this.#sealing = options.sealing;
    this.#credentialPolicy = options.credentialPolicy ?? {};
    this.#log = options.log ?? { warn: () => {} };
    this.#epochCheckIntervalMs = options.epochCheckIntervalMs ?? 5_000;
    this.#retryBaseMs = options.retryBaseMs ?? 250;
    this.#retryMaxMs = options.retryMaxMs ?? 30_000;
  }

  /** Starts watching and runs the first full sync; resolves after that first attempt, failed or not. */
  async start(): Promise<void> {
    if (this.#unwatch || this.#stopped) return;
    this.#unwatch = this.#resources.watch((event) => this.#onEvent(event));
    this.#epochTimer = setInterval(() => void this.#checkEpoch(), this.#epochCheckIntervalMs);
    this.#epochTimer.unref();
    this.#request();
    await this.#running;
  }

  /** Resolves once no sync is running, queued or waiting to be retried: the config is applied. */
  synced(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Problems of the last successful sync: objects left out of the config store, and why. */
  problems(): readonly DesiredConfigProblem[] {
    return this.#problems;
  }

  /** Counts of the last successful sync. */
  lastCounts(): SyncCounts | undefined {
    return this.#lastCounts;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unwatch?.();
    clearInterval(this.#epochTimer);
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    await this.#running;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter.reject(new Error('the reconciler was stopped'));
  }

  #onEvent(event: ResourceEvent): void {
    const { resource } = event;
    const key = resourceKey(resource);
    const generation = resource.metadata.generation;
    // Secrets have no generation in Kubernetes: any change of one may matter.
    if (resource.kind !== 'Secret' && generation !== undefined) {
      if (event.type === 'deleted') this.#generations.delete(key);
      else if (event.type === 'modified' && this.#generations.get(key) === generation) return;
      else this.#generations.set(key, generation);
    }
    this.#request();
  }

  #request(): void {
    if (this.#stopped) return;
    this.#pending = true;
    if (this.#running || this.#retryTimer) return;
    const run = this.#drain();
    this.#running = run;
    void run.then(() => {
      if (this.#running === run) this.#running = undefined;
      this.#settleWaiters();
    });
  }

  async #drain(): Promise<void> {
    while (this.#pending && !this.#stopped) {
      this.#pending = false;
      try {
        await this.#syncOnce();
        this.#failures = 0;
      } catch (error) {
        this.#pending = true;
        this.#failures += 1;
        const delayMs = Math.min(this.#retryMaxMs, this.#retryBaseMs * 2 ** (this.#failures - 1));
        const details = { err: error, failures: this.#failures, retryInMs: delayMs };
        (this.#log.error ?? this.#log.warn).call(this.#log, details, 'config sync failed; retrying');
        this.#scheduleRetry(delayMs);
        return;
      }
    }
  }

  #scheduleRetry(delayMs: number): void {
    if (this.#stopped) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#request();
    }, delayMs);
    this.#retryTimer.unref();
  }

  async #syncOnce(): Promise<void> {
    const [tenants, cachePolicies, connections, modelRoutes, secrets] = await Promise.all([
      this.#resources.list('Tenant'),
      this.#resources.list('CachePolicy'),
      this.#resources.list('Connection'),
      this.#resources.list('ModelRoute'),
      this.#resources.list('Secret'),
    ]);
    this.#generations.clear();
    for (const resource of [...tenants, ...cachePolicies, ...connections, ...modelRoutes]) {
      if (resource.metadata.generation !== undefined) {
        this.#generations.set(resourceKey(resource), resource.metadata.generation);
      }
    }
    const desired = computeDesiredConfig(
      { tenants, cachePolicies, connections, modelRoutes, secrets },
      this.#sealing,
      this.#credentialPolicy,
    );
    const counts = await syncConfigStore(this.#store, desired.records);
    this.#lastCounts = counts;
    if (counts.put > 0 || counts.deleted > 0) this.#log.info?.({ ...counts }, 'config store synced');
    this.#reportProblems(desired.problems);
  }

  /** Logs each problem once, when it first appears, not on every sync. */
  #reportProblems(problems: DesiredConfigProblem[]): void {
    this.#problems = problems;
    const current = new Set<string>();
    for (const problem of problems) {
      const key = JSON.stringify(problem);
      current.add(key);
      if (!this.#reportedProblems.has(key))
        this.#log.warn({ ...problem }, 'resource left out of the config store');
    }
    this.#reportedProblems = current;
  }

  async #checkEpoch(): Promise<void> {
    if (!this.#isIdle() || this.#stopped) return;
    try {
      if ((await this.#store.getEpoch()) !== undefined) return;
      this.#log.warn({}, 'config store has no epoch (wiped?); rebuilding it');
      this.#request();
    } catch (error) {
      this.#log.warn({ err: error }, 'could not read the config store epoch');
    }
  }

  #isIdle(): boolean {
    return !this.#running && !this.#pending && !this.#retryTimer;
  }

  #settleWaiters(): void {
    if (!this.#isIdle()) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter.resolve();
  }
}

function resourceKey(resource: AnyResource): string {
  return `${resource.kind}/${resource.metadata.namespace ?? ''}/${resource.metadata.name}`;
}
