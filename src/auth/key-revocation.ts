/**
 * Revoke-all of a key's ephemeral tokens. Issue times are whole milliseconds and a token is revoked
 * when issued strictly before the recorded instant, so the instant is one past the current
 * millisecond (a token minted earlier in this millisecond is caught), and the call returns only once
 * the clock has reached it (a token minted after the call returns is issued at that instant or
 * later, and so is unaffected). Both hold against this process's clock; across processes they hold
 * up to the skew between their clocks.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { RuntimeStore } from '../stores/types.ts';

/** Revokes every token of `keyId` minted before this call; returns the instant recorded. */
export async function revokeTokensOfKey(
  runtime: RuntimeStore,
  keyId: string,
  now: () => number = Date.now,
): Promise<number> {
  const atMs = now() + 1;
  await runtime.revokeTokensForKey(keyId, atMs);
  while (now() < atMs) await delay(1);
  return atMs;
}
