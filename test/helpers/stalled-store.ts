/**
 * A runtime store as a stalled Redis makes it look to its callers: the named calls fail with
 * StoreTimeoutError at once, while each call itself goes on, held until the test says how it ends.
 * `wake` runs it on the real store (the server woke and ran what it had been sent); `fail` ends it
 * with an error (the connection dropped, or the store refused it).
 */
import { StoreTimeoutError } from '../../src/stores/store-breaker.ts';
import type { RuntimeStore } from '../../src/stores/types.ts';

export interface StalledCall {
  wake(): void;
  fail(error: unknown): void;
}

export function stallCalls<S extends RuntimeStore>(
  store: S,
  methods: readonly (keyof RuntimeStore)[],
): { store: S; calls: StalledCall[] } {
  const calls: StalledCall[] = [];
  const stalled = new Proxy(store, {
    get: (target, property) => {
      const value = Reflect.get(target, property, target) as unknown;
      if (!methods.includes(property as keyof RuntimeStore)) return value;
      return (...args: unknown[]) => {
        const outcome = new Promise<unknown>((resolve, reject) => {
          calls.push({
            wake: () =>
              resolve((value as (...parameters: unknown[]) => Promise<unknown>).apply(target, args)),
            fail: reject,
          });
        });
        return Promise.reject(new StoreTimeoutError('runtime', 10, outcome));
      };
    },
  });
  return { store: stalled, calls };
}
