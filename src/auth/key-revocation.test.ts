import { describe, expect, it } from 'vitest';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import { revokeTokensOfKey } from './key-revocation.ts';
import { RevocationMirror } from './token-verifier.ts';

async function startMirror() {
  const store = await MemoryRuntimeStore.open({});
  const mirror = new RevocationMirror(store);
  await mirror.start();
  return { store, mirror };
}

describe('revokeTokensOfKey', () => {
  it('revokes a token minted earlier in the same millisecond and returns only once the clock has moved on', async () => {
    const { store, mirror } = await startMirror();
    // The clock stays on one millisecond for a while after the call starts, then ticks.
    const start = Date.now();
    const readings = [start, start, start, start];
    const now = () => readings.shift() ?? start + 1;
    const atMs = await revokeTokensOfKey(store, 'key_1', now);
    expect(atMs).toBe(start + 1);
    expect(readings).toEqual([]);
    expect(await store.keyRevokedAt('key_1')).toBe(start + 1);
    // Minted in that millisecond, before the call: revoked. Minted in the next one, the earliest a
    // mint after the call can be issued: not revoked.
    expect(await mirror.isRevoked('jti_before', 'key_1', start, start + 1)).toBe(true);
    expect(await mirror.isRevoked('jti_after', 'key_1', start + 1, start + 1)).toBe(false);
    await mirror.close();
    await store.close();
  });

  it('splits tokens minted just before and just after the call on the real clock', async () => {
    const { store, mirror } = await startMirror();
    // A memory store answers within microseconds: many of these rounds fall in one millisecond.
    for (let round = 0; round < 200; round += 1) {
      const keyId = `key_${round}`;
      const issuedBefore = Date.now();
      await revokeTokensOfKey(store, keyId);
      const issuedAfter = Date.now();
      expect(await mirror.isRevoked('jti_before', keyId, issuedBefore, issuedAfter)).toBe(true);
      expect(await mirror.isRevoked('jti_after', keyId, issuedAfter, issuedAfter)).toBe(false);
    }
    await mirror.close();
    await store.close();
  });
});
