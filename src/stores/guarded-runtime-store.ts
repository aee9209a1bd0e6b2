/**
 * The runtime store behind a circuit breaker (store-breaker.ts): every call goes through the
 * breaker, so that while Redis is away a request fails over to its degraded path at once instead
 * of waiting on a connection timeout. The feeds (`watch*`) manage their own reconnection and stay
 * direct; `ping` stays direct as well, since it is how the breaker probes; `close` stops the
 * breaker too. The memory store never needs one.
 */
import type { StoreBreaker } from './store-breaker.ts';
import type { RuntimeStore } from './types.ts';

/** Calls that bypass the breaker: subscriptions, the probe itself, and closing. */
const DIRECT: ReadonlySet<string | symbol> = new Set(['watchRevocations', 'watchCacheInvalidations', 'ping']);

export function guardRuntimeStore(inner: RuntimeStore, breaker: StoreBreaker): RuntimeStore {
  const guarded = new Map<string | symbol, unknown>();
  return new Proxy(inner, {
    get(target, property) {
      // Closing the store stops the breaker's probing too.
      if (property === 'close') {
        return async () => {
          breaker.stop();
          await target.close();
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function' || DIRECT.has(property)) {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      let wrapper = guarded.get(property);
      if (wrapper === undefined) {
        wrapper = (...args: unknown[]) =>
          breaker.call(() => (value as (...parameters: unknown[]) => Promise<unknown>).apply(target, args));
        guarded.set(property, wrapper);
      }
      return wrapper;
    },
  });
}
