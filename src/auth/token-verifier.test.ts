import { describe, expect, it } from 'vitest';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import { KEY_REVOCATION_TTL_MS, type RevocationEvent, type RuntimeStore } from '../stores/types.ts';
import { RevocationMirror } from './token-verifier.ts';

/**
 * A memory store whose revocation feed the test drives by hand (to simulate a feed outage), and
 * whose snapshot load can be held open while the test emits (as a Redis round trip would be).
 */
async function storeWithManualFeed(options: { duringLoad?: () => Promise<void> } = {}) {
  const store = await MemoryRuntimeStore.open({});
  let emit: (event: RevocationEvent) => void = () => {};
  const calls = { isTokenRevoked: 0 };
  const runtime = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'loadRevocations') {
        return async () => {
          const snapshot = await target.loadRevocations();
          await options.duringLoad?.();
          return snapshot;
        };
      }
      if (property === 'watchRevocations') {
        return async (listener: (event: RevocationEvent) => void) => {
          emit = listener;
          return async () => {};
        };
      }
      if (property === 'isTokenRevoked') {
        return (jti: string) => {
          calls.isTokenRevoked += 1;
          return target.isTokenRevoked(jti);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as RuntimeStore;
  return { store, runtime, emit: (event: RevocationEvent) => emit(event), calls };
}

describe('RevocationMirror', () => {
  const now = Date.now();

  it('answers from the local mirror while the feed is up, without asking the store', async () => {
    const { runtime, emit, calls } = await storeWithManualFeed();
    const mirror = new RevocationMirror(runtime);
    await mirror.start();
    emit({ type: 'token', jti: 'jti_a', expiresAtMs: now + 60_000 });
    emit({ type: 'key', keyId: 'key_1', atMs: now });
    expect(await mirror.isRevoked('jti_a', 'key_2', now - 1000, now)).toBe(true);
    expect(await mirror.isRevoked('jti_b', 'key_1', now - 1, now)).toBe(true);
    expect(await mirror.isRevoked('jti_c', 'key_1', now, now)).toBe(false);
    expect(calls.isTokenRevoked).toBe(0);
  });

  it('asks the store directly while the feed is down, and trusts the mirror again after a reload', async () => {
    const { store, runtime, emit, calls } = await storeWithManualFeed();
    const mirror = new RevocationMirror(runtime);
    await mirror.start();
    emit({ type: 'down' });
    expect(mirror.trusted).toBe(false);
    // Revoked in the store while the feed was down: the mirror never heard of it.
    await store.revokeToken('jti_missed', now + 60_000);
    expect(await mirror.isRevoked('jti_missed', 'key_1', now - 1000, now)).toBe(true);
    expect(calls.isTokenRevoked).toBe(1);
    emit({ type: 'reset' });
    await expect.poll(() => mirror.trusted).toBe(true);
    expect(await mirror.isRevoked('jti_missed', 'key_1', now - 1000, now)).toBe(true);
    expect(calls.isTokenRevoked).toBe(1);
  });

  it('ignores revocations of tokens that have expired', async () => {
    const { runtime, emit } = await storeWithManualFeed();
    const mirror = new RevocationMirror(runtime);
    await mirror.start();
    emit({ type: 'token', jti: 'jti_old', expiresAtMs: now - 1 });
    expect(await mirror.isRevoked('jti_old', 'key_1', now - 10_000, now)).toBe(false);
  });

  it('honours revocations published while its snapshot was loading', async () => {
    let emitDuringLoad = (_event: RevocationEvent) => {};
    const { runtime, emit, calls } = await storeWithManualFeed({
      duringLoad: async () => {
        // Taken before these were published, answered after: the snapshot lacks them.
        emitDuringLoad({ type: 'token', jti: 'jti_during', expiresAtMs: now + 60_000 });
        emitDuringLoad({ type: 'key', keyId: 'key_during', atMs: now });
      },
    });
    emitDuringLoad = emit;
    const mirror = new RevocationMirror(runtime);
    await mirror.start();
    expect(mirror.trusted).toBe(true);
    expect(await mirror.isRevoked('jti_during', 'key_2', now - 1000, now)).toBe(true);
    expect(await mirror.isRevoked('jti_other', 'key_during', now - 1, now)).toBe(true);
    expect(calls.isTokenRevoked).toBe(0);
  });

  it('stays untrusted when the feed drops while its snapshot is loading, until the feed is back', async () => {
    let emitDuringLoad = (_event: RevocationEvent) => {};
    const { runtime, emit } = await storeWithManualFeed({
      duringLoad: async () => emitDuringLoad({ type: 'down' }),
    });
    emitDuringLoad = emit;
    const mirror = new RevocationMirror(runtime);
    await mirror.start();
    expect(mirror.trusted).toBe(false);
    emitDuringLoad = () => {};
    emit({ type: 'reset' });
    await expect.poll(() => mirror.trusted).toBe(true);
  });

  it('drops revocations that can no longer match a live token', async () => {
    let clock = now;
    const { runtime, emit } = await storeWithManualFeed();
    const mirror = new RevocationMirror(runtime, undefined, { now: () => clock });
    await mirror.start();
    emit({ type: 'token', jti: 'jti_short', expiresAtMs: now + 1000 });
    emit({ type: 'token', jti: 'jti_long', expiresAtMs: now + 3_600_000 });
    emit({ type: 'key', keyId: 'key_old', atMs: now - KEY_REVOCATION_TTL_MS + 1000 });
    emit({ type: 'key', keyId: 'key_new', atMs: now });
    expect(mirror.size).toEqual({ tokens: 2, keys: 2 });
    // Ten minutes on, the short token and the day-old revoke-all can match nothing live.
    clock = now + 600_000;
    emit({ type: 'token', jti: 'jti_next', expiresAtMs: clock + 60_000 });
    expect(mirror.size).toEqual({ tokens: 2, keys: 1 });
    expect(await mirror.isRevoked('jti_long', 'key_x', now, clock)).toBe(true);
    expect(await mirror.isRevoked('jti_y', 'key_new', now - 1, clock)).toBe(true);
  });
});
