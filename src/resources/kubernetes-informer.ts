/**
 * An informer: a local cache of one resource collection kept current by list+watch, in the manner
 * of client-go's reflector.
 *
 * - List (paginated), then watch from the list's resourceVersion with bookmarks, so a quiet watch
 *   still advances its resourceVersion. The server ends each watch after `watchTimeoutSeconds`
 *   (jittered); the informer re-watches from the last resourceVersion it saw.
 * - 410 Gone (the resourceVersion was compacted away), as an HTTP status or an in-stream ERROR
 *   event: relist at once. A relist diffs against the cache and emits what changed, including
 *   deletions that happened meanwhile.
 * - Any other failure (connection refused, 5xx, 403, a broken stream): retry with exponential
 *   backoff and jitter, from the last resourceVersion.
 * - Watchdog: a watch that delivers nothing (not even a bookmark: kube-apiserver 1.34 sent the
 *   first after 2 minutes and then one a minute on a quiet watch) for `silenceMs` (default 5
 *   minutes) is aborted and restarted; this catches a dead peer that TCP keepalive has not.
 * - Periodic relist every `relistIntervalMs`, a safety net for anything a watch may have missed.
 *
 * `labelSelector` and `fieldSelector` filter on the server (what is not selected never crosses the
 * wire); `keep` filters on the client what selectors cannot express (e.g. a namespace prefix).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isKubeStatus, KubeApiError, type KubeStatus, type KubeTransport } from './kubernetes-transport.ts';

export interface KubeObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

export interface InformerTimings {
  /** First retry delay after a failure; doubles per consecutive failure up to backoffMaxMs. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A watch silent for this long (no event, no bookmark) is restarted. */
  silenceMs: number;
  /** The server-side watch timeout; each watch gets between 1x and 2x this. */
  watchTimeoutSeconds: number;
  /** Full relist interval. */
  relistIntervalMs: number;
  /** Bound on one list page. */
  listTimeoutMs: number;
}

export const DEFAULT_INFORMER_TIMINGS: InformerTimings = {
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  silenceMs: 5 * 60_000,
  watchTimeoutSeconds: 5 * 60,
  relistIntervalMs: 30 * 60_000,
  listTimeoutMs: 60_000,
};

export type InformerEvent<T> =
  | { type: 'added'; object: T }
  | { type: 'modified'; object: T; previous: T }
  | { type: 'deleted'; object: T };

export interface InformerLog {
  warn(details: object, message: string): void;
  debug?(details: object, message: string): void;
}

export interface InformerOptions<T extends KubeObject> {
  transport: KubeTransport;
  /** For logs, e.g. `Tenant`. */
  name: string;
  /** The collection path, e.g. `/apis/gateway.service.io/v1alpha1/tenants` (all namespaces). */
  path: string;
  labelSelector?: string;
  /** e.g. `type!=helm.sh/release.v1`; sent with every list and watch. */
  fieldSelector?: string;
  /** apiVersion and kind set on every cached object (list items may come without them). */
  stamp?: { apiVersion: string; kind: string };
  keep?: (object: T) => boolean;
  timings?: Partial<InformerTimings>;
  log?: InformerLog;
}

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject & KubeStatus;
}

interface ListPage<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

const LIST_PAGE_SIZE = 500;

/** The end of a watch that is not an error: the relist timer or the watchdog restarted it. */
class WatchRestart extends Error {}

function cacheKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export class KubeInformer<T extends KubeObject> {
  readonly name: string;
  readonly #transport: KubeTransport;
  readonly #path: string;
  readonly #labelSelector: string | undefined;
  readonly #fieldSelector: string | undefined;
  readonly #keep: (object: T) => boolean;
  readonly #stamp: { apiVersion: string; kind: string } | undefined;
  readonly #timings: InformerTimings;
  readonly #log: InformerLog;
  readonly #listeners = new Set<(event: InformerEvent<T>) => void>();
  #objects = new Map<string, T>();
  #resourceVersion: string | undefined;
  #lastListAt = 0;
  #lastActivityAt = 0;
  #watchAbort: AbortController | undefined;
  #stopAbort = new AbortController();
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #synced = false;
  #syncedWaiters: (() => void)[] = [];
  #failures = 0;
  #lastError: unknown;
  /** An ERROR event received on the current watch. */
  #watchError: KubeApiError | undefined;

  constructor(options: InformerOptions<T>) {
    this.name = options.name;
    this.#transport = options.transport;
    this.#path = options.path;
    this.#labelSelector = options.labelSelector;
    this.#fieldSelector = options.fieldSelector;
    this.#keep = options.keep ?? (() => true);
    this.#stamp = options.stamp;
    this.#timings = { ...DEFAULT_INFORMER_TIMINGS, ...options.timings };
    this.#log = options.log ?? { warn: () => {} };
  }

  /** Starts list+watch in the background; see whenSynced(). */
  start(): void {
    if (this.#running) return;
    this.#stopAbort = new AbortController();
    this.#lastActivityAt = Date.now();
    this.#running = this.#run();
    const checkEveryMs = Math.max(50, Math.min(this.#timings.silenceMs, this.#timings.relistIntervalMs) / 4);
    this.#timer = setInterval(() => this.#checkWatch(), checkEveryMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#stopAbort.abort();
    this.#watchAbort?.abort();
    await this.#running;
    this.#running = undefined;
  }

  /** True once the first list has filled the cache. */
  get synced(): boolean {
    return this.#synced;
  }

  whenSynced(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncedWaiters.push(resolve));
  }

  /** Time of the last sign of life from the server (list, event, bookmark, data). */
  get lastActivityAt(): number {
    return this.#lastActivityAt;
  }

  /** Consecutive failures since the last successful list or watch, and the last one's error. */
  get health(): { failures: number; lastError: unknown } {
    return { failures: this.#failures, lastError: this.#lastError };
  }

  /** Cached objects are frozen: share them, do not change them. */
  get(name: string, namespace?: string): T | undefined {
    return this.#objects.get(cacheKey(namespace, name));
  }

  list(namespace?: string): T[] {
    const all = [...this.#objects.values()];
    return namespace === undefined ? all : all.filter((object) => object.metadata.namespace === namespace);
  }

  on(listener: (event: InformerEvent<T>) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  async #run(): Promise<void> {
    const stop = this.#stopAbort.signal;
    while (!stop.aborted) {
      try {
        if (this.#resourceVersion === undefined || this.#relistDue()) await this.#relist();
        const started = Date.now();
        const delivered = await this.#watch();
        // A watch the server ends at once, having sent nothing, counts as a failure: no hot loop.
        if (!delivered && Date.now() - started < 1000) throw new Error('the watch ended at once');
      } catch (error) {
        if (stop.aborted) break;
        if (error instanceof WatchRestart) continue;
        if (isKubeStatus(error, 410)) {
          this.#log.debug?.({ informer: this.name }, 'resourceVersion expired (410); relisting');
          this.#resourceVersion = undefined;
          continue;
        }
        this.#failures += 1;
        this.#lastError = error;
        const exponential = this.#timings.backoffBaseMs * 2 ** Math.min(this.#failures - 1, 20);
        const delayMs = Math.round(
          Math.min(this.#timings.backoffMaxMs, exponential) * (0.5 + Math.random() / 2),
        );
        this.#log.warn(
          { informer: this.name, err: error, failures: this.#failures, retryInMs: delayMs },
          'list/watch failed; retrying',
        );
        await sleep(delayMs, undefined, { signal: stop }).catch(() => {});
      }
    }
  }

  #relistDue(): boolean {
    return Date.now() - this.#lastListAt >= this.#timings.relistIntervalMs;
  }

  /** Lists every page, swaps the cache, emits the differences. */
  async #relist(): Promise<void> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.#transport.request<ListPage<T>>({
        method: 'GET',
        path: this.#path,
        query: {
          labelSelector: this.#labelSelector,
          fieldSelector: this.#fieldSelector,
          limit: LIST_PAGE_SIZE,
          continue: continueToken,
        },
        timeoutMs: this.#timings.listTimeoutMs,
        signal: this.#stopAbort.signal,
      });
      this.#lastActivityAt = Date.now();
      for (const item of page.items ?? []) if (this.#keep(item)) items.push(this.#prepare(item));
      continueToken = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? '';
    } while (continueToken !== undefined);

    const previous = this.#objects;
    const next = new Map<string, T>();
    for (const item of items) next.set(cacheKey(item.metadata.namespace, item.metadata.name), item);
    this.#objects = next;
    this.#resourceVersion = resourceVersion;
    this.#lastListAt = Date.now();
    this.#failures = 0;
    for (const [key, object] of next) {
      const old = previous.get(key);
      if (!old) this.#emit({ type: 'added', object });
      else if (old.metadata.resourceVersion !== object.metadata.resourceVersion)
        this.#emit({ type: 'modified', object, previous: old });
    }
    for (const [key, object] of previous) if (!next.has(key)) this.#emit({ type: 'deleted', object });
    if (!this.#synced) {
      this.#synced = true;
      for (const resolve of this.#syncedWaiters.splice(0)) resolve();
    }
  }

  /** One watch; resolves with whether it delivered anything when the server ends it. */
  async #watch(): Promise<boolean> {
    const abort = new AbortController();
    this.#watchAbort = abort;
    const stop = this.#stopAbort.signal;
    const onStop = () => abort.abort();
    stop.addEventListener('abort', onStop);
    let delivered = false;
    this.#watchError = undefined;
    this.#lastActivityAt = Date.now();
    const timeoutSeconds = Math.round(this.#timings.watchTimeoutSeconds * (1 + Math.random()));
    try {
      await this.#transport.stream(
        this.#path,
        {
          watch: true,
          resourceVersion: this.#resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          labelSelector: this.#labelSelector,
          fieldSelector: this.#fieldSelector,
        },
        abort.signal,
        (line) => {
          delivered = true;
          this.#handleLine(line);
        },
        () => {
          this.#lastActivityAt = Date.now();
        },
      );
      if (this.#watchError) throw this.#watchError;
      if (delivered) this.#failures = 0;
      return delivered;
    } catch (error) {
      if (this.#watchError) throw this.#watchError;
      if (abort.signal.aborted && !stop.aborted) throw new WatchRestart(String(abort.signal.reason));
      throw error;
    } finally {
      stop.removeEventListener('abort', onStop);
      if (this.#watchAbort === abort) this.#watchAbort = undefined;
    }
  }

  #handleLine(line: string): void {
    if (this.#watchError) return;
    let event: WatchEvent;
    try {
      event = JSON.parse(line) as WatchEvent;
    } catch {
      this.#log.warn({ informer: this.name }, 'skipped a watch line that is not JSON');
      return;
    }
    const { type, object } = event;
    if (type === 'ERROR') {
      // Ends the stream; #watch throws it and #run handles it (410: relist, else backoff).
      const code = object?.code ?? 500;
      this.#watchError = new KubeApiError(code, object?.message ?? `watch error ${code}`, object);
      this.#watchAbort?.abort('error event');
      return;
    }
    if (!object?.metadata) return;
    const resourceVersion = object.metadata.resourceVersion;
    if (type === 'BOOKMARK') {
      if (resourceVersion) this.#resourceVersion = resourceVersion;
      return;
    }
    const key = cacheKey(object.metadata.namespace, object.metadata.name);
    const incoming = this.#prepare(object as unknown as T);
    const old = this.#objects.get(key);
    if (type === 'DELETED' || !this.#keep(incoming)) {
      if (old) {
        this.#objects.delete(key);
        this.#emit({ type: 'deleted', object: type === 'DELETED' ? incoming : old });
      }
    } else {
      this.#objects.set(key, incoming);
      if (!old) this.#emit({ type: 'added', object: incoming });
      else if (old.metadata.resourceVersion !== resourceVersion)
        this.#emit({ type: 'modified', object: incoming, previous: old });
    }
    if (resourceVersion) this.#resourceVersion = resourceVersion;
  }

  #prepare(object: T): T {
    if (this.#stamp) Object.assign(object, this.#stamp);
    return deepFreeze(object);
  }

  #emit(event: InformerEvent<T>): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#log.warn({ informer: this.name, err: error }, 'informer listener threw');
      }
    }
  }

  /** The watchdog and the relist timer: both end the current watch; #run does the rest. */
  #checkWatch(): void {
    const watch = this.#watchAbort;
    if (!watch) return;
    if (Date.now() - this.#lastActivityAt > this.#timings.silenceMs) {
      this.#log.warn(
        { informer: this.name, silenceMs: this.#timings.silenceMs },
        'watch silent; restarting it',
      );
      watch.abort('silence');
    } else if (this.#relistDue()) {
      watch.abort('relist');
    }
  }
}
