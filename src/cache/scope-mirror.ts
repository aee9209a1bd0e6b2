/**
 * Each process's mirror of cache invalidations (purge generations, tag times) per workspace,
 * loaded on first use and kept current by the runtime store's cache feed, so a lookup needs one
 * store read (the entry). While the feed is down the mirror is not trusted and every lookup reads
 * the workspace's state from the store.
 */
import type { CacheInvalidationEvent, CacheScopeState, RuntimeStore, Unsubscribe } from '../stores/types.ts';

export class CacheScopeMirror {
  readonly #runtime: RuntimeStore;
  readonly #scopes = new Map<string, CacheScopeState>();
  readonly #loading = new Map<string, Promise<CacheScopeState>>();
  /** Events for workspaces whose state is being loaded: applied to it once loaded. */
  readonly #arrivedWhileLoading = new Map<string, WorkspaceEvent[]>();
  /** Bumped when the feed drops or resumes: a load begun before then may have missed events. */
  #epoch = 0;
  #trusted = false;
  #unsubscribe: Unsubscribe | undefined;

  constructor(runtime: RuntimeStore) {
    this.#runtime = runtime;
  }

  async start(): Promise<void> {
    this.#unsubscribe = await this.#runtime.watchCacheInvalidations((event) => this.#apply(event));
    this.#trusted = true;
  }

  #apply(event: CacheInvalidationEvent): void {
    switch (event.type) {
      case 'purge':
      case 'tags': {
        const scope = this.#scopes.get(event.workspaceId);
        if (scope !== undefined) applyEvent(scope, event);
        else this.#arrivedWhileLoading.get(event.workspaceId)?.push(event);
        return;
      }
      case 'down':
        this.#trusted = false;
        this.#scopes.clear();
        this.#epoch++;
        return;
      case 'reset':
        // Anything may have been missed: forget, and load again on next use.
        this.#scopes.clear();
        this.#trusted = true;
        this.#epoch++;
        return;
    }
  }

  /** The workspace's invalidation state when it is held and current, without waiting; else undefined. */
  known(workspaceId: string): CacheScopeState | undefined {
    return this.#trusted ? this.#scopes.get(workspaceId) : undefined;
  }

  /** The workspace's invalidation state. */
  async scope(workspaceId: string): Promise<CacheScopeState> {
    if (!this.#trusted) return this.#runtime.loadCacheScope(workspaceId);
    const known = this.#scopes.get(workspaceId);
    if (known !== undefined) return known;
    let loading = this.#loading.get(workspaceId);
    if (loading === undefined) {
      const epoch = this.#epoch;
      const arrived: WorkspaceEvent[] = [];
      this.#arrivedWhileLoading.set(workspaceId, arrived);
      const done = () => {
        this.#loading.delete(workspaceId);
        this.#arrivedWhileLoading.delete(workspaceId);
      };
      loading = this.#runtime.loadCacheScope(workspaceId).then(
        (scope) => {
          done();
          // The snapshot may predate an event announced while it was read: merging is idempotent.
          for (const event of arrived) applyEvent(scope, event);
          if (this.#trusted && this.#epoch === epoch) this.#scopes.set(workspaceId, scope);
          return scope;
        },
        (error: unknown) => {
          done();
          throw error;
        },
      );
      this.#loading.set(workspaceId, loading);
    }
    return loading;
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
  }
}

type WorkspaceEvent = Extract<CacheInvalidationEvent, { type: 'purge' | 'tags' }>;

/** Generations and tag times only move forward, so an event applies the same however often. */
function applyEvent(scope: CacheScopeState, event: WorkspaceEvent): void {
  if (event.type === 'purge') {
    if (event.namespace === undefined) scope.generation = Math.max(scope.generation, event.generation);
    else
      scope.namespaces.set(
        event.namespace,
        Math.max(scope.namespaces.get(event.namespace) ?? 0, event.generation),
      );
    return;
  }
  for (const tag of event.tags) scope.tags.set(tag, Math.max(scope.tags.get(tag) ?? 0, event.atMs));
}
