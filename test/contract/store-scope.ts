/**
 * A scope is one isolated store state (a fresh key prefix on Redis, a fresh instance in memory).
 * Every store opened in a scope sees the same state, as gateway replicas sharing one Redis do.
 */
export interface StoreScope<S> {
  open(): Promise<S>;
}

export type CreateStoreScope<S> = () => Promise<StoreScope<S>> | StoreScope<S>;

/** Opens stores through a scope and closes every one of them after the test. */
export class ScopeTracker<S extends { close(): Promise<void> }> {
  #scope: StoreScope<S> | undefined;
  readonly #opened: S[] = [];
  readonly #createScope: CreateStoreScope<S>;

  constructor(createScope: CreateStoreScope<S>) {
    this.#createScope = createScope;
  }

  async begin(): Promise<S> {
    this.#scope = await this.#createScope();
    return this.open();
  }

  async open(): Promise<S> {
    if (this.#scope === undefined) throw new Error('begin() first');
    const store = await this.#scope.open();
    this.#opened.push(store);
    return store;
  }

  async end(): Promise<void> {
    const opened = this.#opened.splice(0);
    await Promise.all(opened.map((store) => store.close()));
    this.#scope = undefined;
  }
}
