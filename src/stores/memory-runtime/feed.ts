/**
 * The memory runtime store's event feeds (revocations, cache invalidations): the in-process twin
 * of RedisFeed. Events are delivered asynchronously, never inside the call that announced them, as
 * they would be over pub/sub; the feed never goes down, so it never announces `down` or `reset`.
 */
import type { Unsubscribe } from '../types.ts';

export class MemoryFeed<E extends object> {
  readonly #listeners = new Set<(event: E) => void>();
  readonly #onError: (error: unknown) => void;

  /** `onError` is told about listeners that threw; the other listeners are still called. */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  async watch(listener: (event: E) => void): Promise<Unsubscribe> {
    // Wrapped, so that the same function can watch twice and unsubscribe each independently.
    const subscription = (event: E) => listener(event);
    this.#listeners.add(subscription);
    return async () => {
      this.#listeners.delete(subscription);
    };
  }

  /** Each listener gets its own copy: one that mutates an event cannot change another's. */
  announce(event: E): void {
    queueMicrotask(() => {
      for (const listener of this.#listeners) {
        try {
          listener(structuredClone(event));
        } catch (error) {
          this.#onError(error);
        }
      }
    });
  }

  /** Forgets every listener, including for events announced but not yet delivered. */
  close(): void {
    this.#listeners.clear();
  }
}
