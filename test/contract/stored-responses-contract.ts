/**
 * The stored-responses part of the RuntimeStore contract (run against memory and Redis through
 * runtime-store-contract.ts): records per workspace scope, read in one call, kept alive as a
 * conversation, deleted, expired.
 */
import { describe, expect, it, vi } from 'vitest';
import type { RuntimeStore } from '../../src/stores/types.ts';

const waitOptions = { timeout: 5000, interval: 25 };

export function describeStoredResponsesContract(
  current: () => RuntimeStore,
  openAnother: () => Promise<RuntimeStore>,
): void {
  describe('stored responses', () => {
    it('stores a record per scope and id, read by another store, never from another scope', async () => {
      const store = current();
      const other = await openAnother();
      await store.putStoredResponse('t1/w1', 'resp_a', '{"id":"resp_a"}', 60_000, []);
      expect(await other.getStoredResponses('t1/w1', ['resp_a'])).toEqual(['{"id":"resp_a"}']);
      expect(await other.getStoredResponses('t1/w2', ['resp_a'])).toEqual([undefined]);
      expect(await other.getStoredResponses('t2/w1', ['resp_a'])).toEqual([undefined]);
      expect(await other.deleteStoredResponse('t1/w2', 'resp_a')).toBe(false);
      expect(await store.getStoredResponses('t1/w1', ['resp_a'])).toEqual(['{"id":"resp_a"}']);
    });

    it('reads many records in order, undefined for those absent, nothing for no ids', async () => {
      const store = current();
      await store.putStoredResponse('t1/w1', 'resp_1', 'one', 60_000, []);
      await store.putStoredResponse('t1/w1', 'resp_3', 'ünïcødé 🚀', 60_000, []);
      expect(await store.getStoredResponses('t1/w1', ['resp_3', 'resp_2', 'resp_1'])).toEqual([
        'ünïcødé 🚀',
        undefined,
        'one',
      ]);
      expect(await store.getStoredResponses('t1/w1', [])).toEqual([]);
    });

    it('deletes a record once: true the first time, false after', async () => {
      const store = current();
      await store.putStoredResponse('t1/w1', 'resp_d', 'x', 60_000, []);
      expect(await store.deleteStoredResponse('t1/w1', 'resp_d')).toBe(true);
      expect(await store.deleteStoredResponse('t1/w1', 'resp_d')).toBe(false);
      expect(await store.getStoredResponses('t1/w1', ['resp_d'])).toEqual([undefined]);
    });

    it('expires a record after its TTL', async () => {
      const store = current();
      await store.putStoredResponse('t1/w1', 'short', 's', 300, []);
      await store.putStoredResponse('t1/w1', 'long', 'l', 60_000, []);
      await vi.waitFor(
        async () => expect(await store.getStoredResponses('t1/w1', ['short'])).toEqual([undefined]),
        waitOptions,
      );
      expect(await store.getStoredResponses('t1/w1', ['long'])).toEqual(['l']);
    });

    it("gives a conversation's earlier records the new one's life, and brings back none that is gone", async () => {
      const store = current();
      await store.putStoredResponse('t1/w1', 'turn1', 'one', 400, []);
      await store.putStoredResponse('t1/w1', 'turn2', 'two', 60_000, ['turn1', 'deleted']);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await store.getStoredResponses('t1/w1', ['turn1', 'turn2', 'deleted'])).toEqual([
        'one',
        'two',
        undefined,
      ]);
    });

    it('rejects malformed scopes, ids, records, TTLs and keep-alive lists with a TypeError', async () => {
      const store = current();
      await expect(store.putStoredResponse('', 'r', 'x', 1000, [])).rejects.toBeInstanceOf(TypeError);
      await expect(store.putStoredResponse('s', '', 'x', 1000, [])).rejects.toBeInstanceOf(TypeError);
      await expect(store.putStoredResponse('s', 'r', 'x', 0, [])).rejects.toBeInstanceOf(TypeError);
      await expect(store.putStoredResponse('s', 'r', 'x', 1.5, [])).rejects.toBeInstanceOf(TypeError);
      await expect(
        store.putStoredResponse('s', 'r', 1 as unknown as string, 1000, []),
      ).rejects.toBeInstanceOf(TypeError);
      await expect(store.putStoredResponse('s', 'r', 'x', 1000, [''])).rejects.toBeInstanceOf(TypeError);
      await expect(store.getStoredResponses('s', [''])).rejects.toBeInstanceOf(TypeError);
      await expect(store.getStoredResponses('', ['r'])).rejects.toBeInstanceOf(TypeError);
      await expect(store.deleteStoredResponse('s', '')).rejects.toBeInstanceOf(TypeError);
      expect(await store.getStoredResponses('s', ['r'])).toEqual([undefined]);
    });
  });
}
