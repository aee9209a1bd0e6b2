/** The behaviour every RuntimeStore implementation must show (run against memory and Redis). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AuditEntry,
  type CacheInvalidationEvent,
  KEY_REVOCATION_TTL_MS,
  type RevocationEvent,
  type RuntimeStore,
  type TokenRecord,
} from '../../src/stores/types.ts';
import { ScopeTracker, type StoreScope } from './store-scope.ts';
import { describeStoredResponsesContract } from './stored-responses-contract.ts';

/** Options a runner passes to the stores of a scope (a small audit limit, for the limit test). */
export interface RuntimeScopeOptions {
  auditLimit?: number;
}

export type CreateRuntimeScope = (
  options?: RuntimeScopeOptions,
) => Promise<StoreScope<RuntimeStore>> | StoreScope<RuntimeStore>;

export interface RevocationRecorder {
  readonly events: RevocationEvent[];
  waitFor(predicate: (event: RevocationEvent) => boolean, timeoutMs?: number): Promise<RevocationEvent>;
  stop(): Promise<void>;
}

/** Watches a store's revocation feed, keeping every event in order. */
export async function recordRevocations(store: RuntimeStore): Promise<RevocationRecorder> {
  const events: RevocationEvent[] = [];
  const stop = await store.watchRevocations((event) => events.push(event));
  return {
    events,
    stop,
    async waitFor(predicate, timeoutMs = 5000) {
      let found: RevocationEvent | undefined;
      await vi.waitFor(
        () => {
          found = events.find(predicate);
          if (found === undefined) throw new Error(`no matching event yet; saw ${JSON.stringify(events)}`);
        },
        { timeout: timeoutMs, interval: 10 },
      );
      return found as RevocationEvent;
    },
  };
}

export const isEventType = (type: RevocationEvent['type']) => (event: RevocationEvent) => event.type === type;

export interface CacheInvalidationRecorder {
  readonly events: CacheInvalidationEvent[];
  waitFor(
    predicate: (event: CacheInvalidationEvent) => boolean,
    timeoutMs?: number,
  ): Promise<CacheInvalidationEvent>;
  stop(): Promise<void>;
}

/** Watches a store's cache feed, keeping every event in order. */
export async function recordCacheInvalidations(store: RuntimeStore): Promise<CacheInvalidationRecorder> {
  const events: CacheInvalidationEvent[] = [];
  const stop = await store.watchCacheInvalidations((event) => events.push(event));
  return {
    events,
    stop,
    async waitFor(predicate, timeoutMs = 5000) {
      let found: CacheInvalidationEvent | undefined;
      await vi.waitFor(
        () => {
          found = events.find(predicate);
          if (found === undefined) throw new Error(`no matching event yet; saw ${JSON.stringify(events)}`);
        },
        { timeout: timeoutMs, interval: 10 },
      );
      return found as CacheInvalidationEvent;
    },
  };
}

export const isCacheEventType =
  (type: CacheInvalidationEvent['type']) =>
  (event: CacheInvalidationEvent): boolean =>
    event.type === type;

/** Namespaces and tags a caller may well use: separators, spaces, quotes, non-ASCII, object keys. */
export const ODD_NAMES = [
  'a:b',
  'a:b:',
  ':',
  'with space',
  'quote"and\\backslash',
  'slash/and.dot',
  'ünïcødé 日本語 🚀',
  '__proto__',
  'constructor',
  '*',
] as const;

export function makeTokenRecord(jti: string, overrides: Partial<TokenRecord> = {}): TokenRecord {
  const issuedAtMs = Date.now();
  return {
    jti,
    tenantId: 't1',
    workspaceId: 'w1',
    parentKeyId: 'k1',
    issuedAtMs,
    expiresAtMs: issuedAtMs + 60_000,
    ...overrides,
  };
}

/** Ids that sort like the control plane's: zero-padded, so string order is numeric order. */
export function makeAuditEntry(sequence: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: `a${String(sequence).padStart(6, '0')}`,
    at: new Date(1_700_000_000_000 + sequence).toISOString(),
    actor: 'pat-1',
    operation: 'putApiKey',
    target: `k${sequence}`,
    outcome: 'success',
    ...overrides,
  };
}

const ids = (entries: AuditEntry[]) => entries.map((entry) => entry.id);
const waitOptions = { timeout: 5000, interval: 25 };

export function describeRuntimeStoreContract(name: string, createScope: CreateRuntimeScope): void {
  describe(`RuntimeStore contract (${name})`, () => {
    const scope = new ScopeTracker(() => createScope());
    let store: RuntimeStore;

    beforeEach(async () => {
      store = await scope.begin();
    });
    afterEach(async () => {
      await scope.end();
    });

    it('has no balance for a tenant never set', async () => {
      expect(await store.getBalance('t1')).toBeUndefined();
    });

    it('initialises a balance only once', async () => {
      expect(await store.initBalance('t1', 5_000_000)).toBe(true);
      expect(await store.initBalance('t1', 9_000_000)).toBe(false);
      expect(await store.getBalance('t1')).toBe(5_000_000);
    });

    it('adjusts a balance and returns the new value, below zero too', async () => {
      await store.initBalance('t1', 1000);
      expect(await store.adjustBalance('t1', -400)).toBe(600);
      expect(await store.adjustBalance('t1', -700)).toBe(-100);
      expect(await store.adjustBalance('t1', 50)).toBe(-50);
      expect(await store.getBalance('t1')).toBe(-50);
      expect(await store.getBalance('t2')).toBeUndefined();
    });

    it('adjusts a balance never initialised from zero', async () => {
      expect(await store.adjustBalance('t1', -25)).toBe(-25);
    });

    it('applies 100 concurrent adjustments from two stores atomically', async () => {
      const other = await scope.open();
      await store.initBalance('t1', 1_000_000);
      const deltas = Array.from({ length: 100 }, (_, index) => -(index + 1));
      const results = await Promise.all(
        deltas.map((delta, index) => (index % 2 === 0 ? store : other).adjustBalance('t1', delta)),
      );
      const expected = 1_000_000 - deltas.reduce((sum, delta) => sum - delta, 0);
      expect(await store.getBalance('t1')).toBe(expected);
      // Each adjustment saw a distinct intermediate balance: none was lost or applied twice.
      expect(new Set(results).size).toBe(100);
      expect(Math.min(...results)).toBe(expected);
    });

    it('rejects amounts that are not integers with a TypeError', async () => {
      await expect(store.initBalance('t1', 1.5)).rejects.toBeInstanceOf(TypeError);
      await expect(store.adjustBalance('t1', 0.1)).rejects.toBeInstanceOf(TypeError);
      await expect(store.adjustBalance('t1', Number.NaN)).rejects.toBeInstanceOf(TypeError);
      await expect(store.adjustBalance('t1', 2 ** 60)).rejects.toBeInstanceOf(TypeError);
      await expect(store.incrementCounter('c', 0.5)).rejects.toBeInstanceOf(TypeError);
      await expect(store.incrementCounter('c', 1, 0)).rejects.toBeInstanceOf(TypeError);
      await expect(store.incrementCounter('c', 1, 1.5)).rejects.toBeInstanceOf(TypeError);
      expect(await store.getBalance('t1')).toBeUndefined();
      expect(await store.getCounter('c')).toBe(0);
    });

    it('counts without a TTL durably', async () => {
      expect(await store.getCounter('spend:t1')).toBe(0);
      expect(await store.incrementCounter('spend:t1', 5)).toBe(5);
      expect(await store.incrementCounter('spend:t1', 7)).toBe(12);
      expect(await store.incrementCounter('spend:t1', -2)).toBe(10);
      expect(await store.getCounter('spend:t1')).toBe(10);
      expect(await store.getCounter('spend:t2')).toBe(0);
    });

    it('applies 100 concurrent increments from two stores atomically', async () => {
      const other = await scope.open();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          (index % 2 === 0 ? store : other).incrementCounter('n', 1, 60),
        ),
      );
      expect(new Set(results).size).toBe(100);
      expect(await store.getCounter('n')).toBe(100);
    });

    it('expires a TTL counter after the TTL set by its first increment', async () => {
      expect(await store.incrementCounter('window', 3, 1)).toBe(3);
      // A later, longer TTL does not extend the window (EXPIRE NX); nor does an increment without one.
      expect(await store.incrementCounter('window', 4, 3600)).toBe(7);
      expect(await store.incrementCounter('window', 1)).toBe(8);
      expect(await store.getCounter('window')).toBe(8);
      await vi.waitFor(async () => expect(await store.getCounter('window')).toBe(0), {
        timeout: 3000,
        interval: 100,
      });
      expect(await store.incrementCounter('window', 2, 60)).toBe(2);
    });

    it('answers ping', async () => {
      expect(await store.ping()).toBe(true);
    });

    describe('reserveWithinCap', () => {
      it('adds within the cap (up to it exactly) and refuses beyond it, reporting the value', async () => {
        expect(await store.reserveWithinCap('budget', 60, 100)).toEqual({ ok: true, value: 60 });
        expect(await store.reserveWithinCap('budget', 41, 100)).toEqual({ ok: false, value: 60 });
        expect(await store.reserveWithinCap('budget', 40, 100)).toEqual({ ok: true, value: 100 });
        expect(await store.reserveWithinCap('budget', 1, 100)).toEqual({ ok: false, value: 100 });
        expect(await store.getCounter('budget')).toBe(100);
        // Shares the counter with incrementCounter (a settle that corrects a reservation).
        expect(await store.incrementCounter('budget', -30)).toBe(70);
        expect(await store.reserveWithinCap('budget', 30, 100)).toEqual({ ok: true, value: 100 });
      });

      it('creates nothing when the first reservation is refused', async () => {
        expect(await store.reserveWithinCap('fresh', 11, 10, 60)).toEqual({ ok: false, value: 0 });
        expect(await store.getCounter('fresh')).toBe(0);
        // Not created, so the TTL of the first accepted reservation is the one that counts.
        expect(await store.reserveWithinCap('fresh', 10, 10, 60)).toEqual({ ok: true, value: 10 });
      });

      it('never exceeds the cap under 50 concurrent reservations from two stores', async () => {
        const other = await scope.open();
        const cap = 400;
        const amounts = Array.from({ length: 50 }, (_, index) => (index % 7) + 10);
        const results = await Promise.all(
          amounts.map((amount, index) =>
            (index % 2 === 0 ? store : other).reserveWithinCap('concurrent', amount, cap, 60),
          ),
        );
        const accepted = results.flatMap((result, index) => (result.ok ? [amounts[index] as number] : []));
        const final = accepted.reduce((sum, amount) => sum + amount, 0);
        expect(await store.getCounter('concurrent')).toBe(final);
        expect(final).toBeLessThanOrEqual(cap);
        // The total asked for is well above the cap: some were refused, and the cap is nearly used.
        expect(accepted.length).toBeLessThan(50);
        expect(final).toBeGreaterThan(cap - Math.max(...amounts));
        // Each accepted reservation saw its own running total, and none past the cap.
        const acceptedValues = results.filter((result) => result.ok).map((result) => result.value);
        expect(new Set(acceptedValues).size).toBe(accepted.length);
        expect(Math.max(...acceptedValues)).toBe(final);
        // Each refused one reported a value that its amount would indeed have taken past the cap.
        results.forEach((result, index) => {
          expect(result.value).toBeLessThanOrEqual(cap);
          if (!result.ok) expect(result.value + (amounts[index] as number)).toBeGreaterThan(cap);
        });
      });

      it('expires after the TTL set on creation, which later reservations do not extend', async () => {
        expect(await store.reserveWithinCap('window', 3, 100, 1)).toEqual({ ok: true, value: 3 });
        expect(await store.reserveWithinCap('window', 4, 100, 3600)).toEqual({ ok: true, value: 7 });
        expect(await store.reserveWithinCap('window', 1, 100)).toEqual({ ok: true, value: 8 });
        await vi.waitFor(async () => expect(await store.getCounter('window')).toBe(0), {
          timeout: 3000,
          interval: 100,
        });
        expect(await store.reserveWithinCap('window', 2, 100, 60)).toEqual({ ok: true, value: 2 });
      });

      it('rejects amounts, caps and TTLs that are not integers with a TypeError', async () => {
        await expect(store.reserveWithinCap('c', 0.5, 10)).rejects.toBeInstanceOf(TypeError);
        await expect(store.reserveWithinCap('c', 1, Number.NaN)).rejects.toBeInstanceOf(TypeError);
        await expect(store.reserveWithinCap('c', 1, 10, 0)).rejects.toBeInstanceOf(TypeError);
        expect(await store.getCounter('c')).toBe(0);
      });
    });

    describe('applySpendOnce', () => {
      it('applies a journaled change to a balance or a counter once per operation id', async () => {
        await store.initBalance('t-once', 1000);
        const debit = { kind: 'balance' as const, tenantId: 't-once', deltaMicros: -30 };
        expect(await store.applySpendOnce(debit, 'op-000001')).toBe('applied');
        expect(await store.applySpendOnce(debit, 'op-000001')).toBe('repeat');
        expect(await store.applySpendOnce(debit, 'op-000002')).toBe('applied');
        expect(await store.getBalance('t-once')).toBe(940);
        // A tenant without a balance (postpaid) gets none from a replayed debit, and the caller is told.
        expect(await store.applySpendOnce({ ...debit, tenantId: 't-postpaid' }, 'op-000005')).toBe(
          'no-balance',
        );
        expect(await store.getBalance('t-postpaid')).toBeUndefined();
        expect(await store.applySpendOnce({ ...debit, tenantId: 't-postpaid' }, 'op-000005')).toBe('repeat');
        const spend = {
          kind: 'counter' as const,
          name: 'spend:once',
          by: 7,
          ttlSeconds: 600,
          keep: 'durable' as const,
        };
        expect(await store.applySpendOnce(spend, 'op-000003')).toBe('applied');
        expect(await store.applySpendOnce(spend, 'op-000003')).toBe('repeat');
        expect(await store.getCounter('spend:once')).toBe(7);
        // Concurrent repeats of one operation: exactly one applies.
        const results = await Promise.all(
          Array.from({ length: 10 }, () => store.applySpendOnce({ ...spend, by: 1 }, 'op-000004')),
        );
        expect(results.filter((outcome) => outcome === 'applied')).toHaveLength(1);
        expect(results.filter((outcome) => outcome === 'repeat')).toHaveLength(9);
        expect(await store.getCounter('spend:once')).toBe(8);
      });

      it('refuses malformed changes and operation ids with a TypeError', async () => {
        const debit = { kind: 'balance' as const, tenantId: 't', deltaMicros: 1 };
        await expect(store.applySpendOnce(debit, 'short')).rejects.toBeInstanceOf(TypeError);
        await expect(
          store.applySpendOnce({ ...debit, deltaMicros: 0.5 }, 'op-000010'),
        ).rejects.toBeInstanceOf(TypeError);
        await expect(
          store.applySpendOnce({ kind: 'counter', name: '', by: 1 }, 'op-000011'),
        ).rejects.toBeInstanceOf(TypeError);
      });
    });

    describe('reserveUpToCap', () => {
      it('reserves what is left below the cap, and refuses only once the cap is reached', async () => {
        expect(await store.reserveUpToCap('budget', 60, 100)).toEqual({ ok: true, reserved: 60, value: 60 });
        // 41 does not fit: the 40 left are reserved.
        expect(await store.reserveUpToCap('budget', 41, 100)).toEqual({ ok: true, reserved: 40, value: 100 });
        expect(await store.reserveUpToCap('budget', 1, 100)).toEqual({ ok: false, reserved: 0, value: 100 });
        // A settle may take the counter past the cap; it stays refused.
        expect(await store.incrementCounter('budget', 7)).toBe(107);
        expect(await store.reserveUpToCap('budget', 1, 100)).toEqual({ ok: false, reserved: 0, value: 107 });
        expect(await store.incrementCounter('budget', -8)).toBe(99);
        expect(await store.reserveUpToCap('budget', 5, 100)).toEqual({ ok: true, reserved: 1, value: 100 });
      });

      it('serves a 1-unit cap exactly once, and creates nothing when refused', async () => {
        expect(await store.reserveUpToCap('one', 500, 1, 60)).toEqual({ ok: true, reserved: 1, value: 1 });
        expect(await store.reserveUpToCap('one', 500, 1, 60)).toEqual({ ok: false, reserved: 0, value: 1 });
        expect(await store.reserveUpToCap('zero', 5, 0, 60)).toEqual({ ok: false, reserved: 0, value: 0 });
        expect(await store.getCounter('zero')).toBe(0);
      });

      it('lets exactly as many concurrent callers through as there are units left', async () => {
        const other = await scope.open();
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, index) =>
            (index % 2 === 0 ? store : other).reserveUpToCap('last', 10, 25, 60, 'durable'),
          ),
        );
        const accepted = results.filter((result) => result.ok);
        expect(accepted.map((result) => result.reserved).sort((a, b) => a - b)).toEqual([5, 10, 10]);
        expect(await store.getCounter('last')).toBe(25);
      });

      it('rejects amounts, caps and TTLs that are not integers with a TypeError', async () => {
        await expect(store.reserveUpToCap('c', 0.5, 10)).rejects.toBeInstanceOf(TypeError);
        await expect(store.reserveUpToCap('c', 1, Number.NaN)).rejects.toBeInstanceOf(TypeError);
        await expect(store.reserveUpToCap('c', 1, 10, 0)).rejects.toBeInstanceOf(TypeError);
        expect(await store.getCounter('c')).toBe(0);
      });
    });

    describe('semantic index', () => {
      const id = (n: number) => n.toString(16).padStart(64, '0');
      const vector = (n: number, dimensions = 8) =>
        Int8Array.from({ length: dimensions }, (_, k) => ((n + k) % 255) - 127);
      const candidate = (n: number, lifeMs = 60_000, dimensions = 8) => ({
        id: id(n),
        expiresAtMs: Date.now() + lifeMs,
        vector: vector(n, dimensions),
      });

      it('returns the newest candidates first, as many as asked, vectors intact', async () => {
        for (let n = 1; n <= 5; n += 1) await store.addSemanticCandidate('b1', candidate(n), 100, 60_000);
        const all = await store.scanSemanticCandidates('b1', 8, 10);
        expect(all.map((entry) => entry.id)).toEqual([id(5), id(4), id(3), id(2), id(1)]);
        expect(Array.from(all[0]?.vector ?? [])).toEqual(Array.from(vector(5)));
        const newest = await store.scanSemanticCandidates('b1', 8, 2);
        expect(newest.map((entry) => entry.id)).toEqual([id(5), id(4)]);
        expect(await store.scanSemanticCandidates('b1', 8, 0)).toEqual([]);
        expect(await store.scanSemanticCandidates('other', 8, 10)).toEqual([]);
        // Another store on the same backend sees them (Redis), or its own (memory: per process).
        const other = await scope.open();
        expect((await other.scanSemanticCandidates('b1', 8, 10)).length).toBeGreaterThanOrEqual(0);
      });

      it('leaves out expired candidates and keeps only the newest of a repeated id', async () => {
        await store.addSemanticCandidate('b2', candidate(1, 1), 100, 60_000);
        await store.addSemanticCandidate('b2', candidate(2), 100, 60_000);
        await store.addSemanticCandidate('b2', { ...candidate(2), vector: vector(9) }, 100, 60_000);
        await vi.waitFor(async () => {
          const found = await store.scanSemanticCandidates('b2', 8, 10);
          expect(found.map((entry) => entry.id)).toEqual([id(2)]);
          expect(Array.from(found[0]?.vector ?? [])).toEqual(Array.from(vector(9)));
        });
      });

      it('keeps about maxCandidates: the oldest go', async () => {
        for (let n = 1; n <= 30; n += 1) await store.addSemanticCandidate('b3', candidate(n), 10, 60_000);
        const kept = await store.scanSemanticCandidates('b3', 8, 100);
        expect(kept.length).toBeGreaterThanOrEqual(10);
        expect(kept.length).toBeLessThanOrEqual(13);
        expect(kept[0]?.id).toBe(id(30));
        expect(kept.map((entry) => entry.id)).not.toContain(id(1));
      });

      it('expires a bucket after its life, which a later write extends but never shortens', async () => {
        await store.addSemanticCandidate('b4', candidate(1), 100, 200);
        await store.addSemanticCandidate('b4', candidate(2), 100, 60_000);
        await store.addSemanticCandidate('b4', candidate(3), 100, 1);
        await new Promise((resolve) => setImmediate(resolve));
        expect((await store.scanSemanticCandidates('b4', 8, 10)).length).toBe(3);
        await store.addSemanticCandidate('b5', candidate(1), 100, 50);
        await vi.waitFor(async () => expect(await store.scanSemanticCandidates('b5', 8, 10)).toEqual([]), {
          timeout: 3000,
          interval: 50,
        });
      });

      it('refuses malformed ids, vectors and sizes with a TypeError', async () => {
        await expect(
          store.addSemanticCandidate('b6', { ...candidate(1), id: 'nope' }, 10, 1000),
        ).rejects.toBeInstanceOf(TypeError);
        await expect(
          store.addSemanticCandidate('b6', { ...candidate(1), vector: new Int8Array(0) }, 10, 1000),
        ).rejects.toBeInstanceOf(TypeError);
        await expect(store.addSemanticCandidate('b6', candidate(1), 0, 1000)).rejects.toBeInstanceOf(
          TypeError,
        );
        await expect(store.scanSemanticCandidates('b6', 0, 10)).rejects.toBeInstanceOf(TypeError);
        await expect(store.scanSemanticCandidates('', 8, 10)).rejects.toBeInstanceOf(TypeError);
      });

      it('scans the newest of a 10,000-candidate bucket of 384-component vectors', async () => {
        for (let n = 1; n <= 10_000; n += 1)
          await store.addSemanticCandidate('big', candidate(n, 60_000, 384), 20_000, 60_000);
        const newest = await store.scanSemanticCandidates('big', 384, 1000);
        expect(newest).toHaveLength(1000);
        expect(newest[0]?.id).toBe(id(10_000));
        expect(newest[999]?.id).toBe(id(9001));
      });
    });

    describe('tokens', () => {
      it('records a token and reads it back until it expires', async () => {
        const record = makeTokenRecord('j1');
        await store.recordToken(record);
        expect(await store.getToken('j1')).toEqual(record);
        expect(await store.getToken('j2')).toBeUndefined();
        const other = await scope.open();
        expect(await other.getToken('j1')).toEqual(record);
      });

      it('forgets a token once it has expired, and never keeps one already expired', async () => {
        await store.recordToken(makeTokenRecord('short', { expiresAtMs: Date.now() + 400 }));
        await store.recordToken(makeTokenRecord('dead', { expiresAtMs: Date.now() - 1 }));
        expect(await store.getToken('short')).toBeDefined();
        expect(await store.getToken('dead')).toBeUndefined();
        await vi.waitFor(async () => expect(await store.getToken('short')).toBeUndefined(), waitOptions);
      });

      it('rejects malformed records with a TypeError', async () => {
        await expect(store.recordToken(makeTokenRecord(''))).rejects.toBeInstanceOf(TypeError);
        await expect(store.recordToken(makeTokenRecord('j1', { expiresAtMs: 1.5 }))).rejects.toBeInstanceOf(
          TypeError,
        );
        expect(await store.getToken('j1')).toBeUndefined();
      });
    });

    describe('revocations', () => {
      it('revokes a token: checked directly, in the list, and announced to another store', async () => {
        const other = await scope.open();
        const recorder = await recordRevocations(other);
        const expiresAtMs = Date.now() + 60_000;
        await store.revokeToken('j1', expiresAtMs);

        expect(await store.isTokenRevoked('j1')).toBe(true);
        expect(await other.isTokenRevoked('j1')).toBe(true);
        expect(await store.isTokenRevoked('j2')).toBe(false);
        const revocations = await other.loadRevocations();
        expect(revocations.tokens).toEqual(new Map([['j1', expiresAtMs]]));
        expect(revocations.keys).toEqual(new Map());
        await recorder.waitFor(isEventType('token'));
        expect(recorder.events).toEqual([{ type: 'token', jti: 'j1', expiresAtMs }]);
        await recorder.stop();
      });

      it('revokes every token of a key before a time, announced to another store', async () => {
        const other = await scope.open();
        const recorder = await recordRevocations(other);
        const atMs = Date.now();
        await store.revokeTokensForKey('k1', atMs);

        expect(await store.keyRevokedAt('k1')).toBe(atMs);
        expect(await other.keyRevokedAt('k1')).toBe(atMs);
        expect(await store.keyRevokedAt('k2')).toBeUndefined();
        const revocations = await other.loadRevocations();
        expect(revocations.keys).toEqual(new Map([['k1', atMs]]));
        expect(revocations.tokens).toEqual(new Map());
        await recorder.waitFor(isEventType('key'));
        expect(recorder.events).toEqual([{ type: 'key', keyId: 'k1', atMs }]);
        await recorder.stop();
      });

      it('never moves a key revocation back, and announces the time in force', async () => {
        const recorder = await recordRevocations(store);
        const atMs = Date.now();
        await store.revokeTokensForKey('k1', atMs);
        await store.revokeTokensForKey('k1', atMs - 5000);
        expect(await store.keyRevokedAt('k1')).toBe(atMs);
        await store.revokeTokensForKey('k1', atMs + 10);
        expect(await store.keyRevokedAt('k1')).toBe(atMs + 10);
        expect((await store.loadRevocations()).keys.get('k1')).toBe(atMs + 10);
        await vi.waitFor(() => expect(recorder.events).toHaveLength(3), waitOptions);
        expect(recorder.events).toEqual([
          { type: 'key', keyId: 'k1', atMs },
          { type: 'key', keyId: 'k1', atMs },
          { type: 'key', keyId: 'k1', atMs: atMs + 10 },
        ]);
        await recorder.stop();
      });

      it('keeps the later expiry of a token revoked twice', async () => {
        const later = Date.now() + 60_000;
        await store.revokeToken('j1', later);
        await store.revokeToken('j1', later - 30_000);
        expect((await store.loadRevocations()).tokens.get('j1')).toBe(later);
      });

      it('keeps revocations of many tokens and keys apart', async () => {
        const expiresAtMs = Date.now() + 60_000;
        const atMs = Date.now();
        await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            index % 2 === 0
              ? store.revokeToken(`j${index}`, expiresAtMs + index)
              : store.revokeTokensForKey(`k${index}`, atMs + index),
          ),
        );
        const revocations = await store.loadRevocations();
        expect(revocations.tokens.size).toBe(10);
        expect(revocations.keys.size).toBe(10);
        expect(revocations.tokens.get('j4')).toBe(expiresAtMs + 4);
        expect(revocations.keys.get('k5')).toBe(atMs + 5);
      });

      it('drops revocations once they have expired', async () => {
        const now = Date.now();
        await store.revokeToken('short', now + 400);
        await store.revokeToken('long', now + 60_000);
        // A key's revoke-all is kept for KEY_REVOCATION_TTL_MS after its time.
        await store.revokeTokensForKey('old', now - KEY_REVOCATION_TTL_MS + 400);
        await store.revokeTokensForKey('new', now);
        expect(await store.isTokenRevoked('short')).toBe(true);
        expect(await store.keyRevokedAt('old')).toBe(now - KEY_REVOCATION_TTL_MS + 400);

        await vi.waitFor(async () => {
          expect(await store.isTokenRevoked('short')).toBe(false);
          expect(await store.keyRevokedAt('old')).toBeUndefined();
        }, waitOptions);
        const revocations = await store.loadRevocations();
        expect([...revocations.tokens.keys()]).toEqual(['long']);
        expect([...revocations.keys.keys()]).toEqual(['new']);
      });

      it('ignores revocations that have already expired', async () => {
        const recorder = await recordRevocations(store);
        await store.revokeToken('dead', Date.now() - 1);
        await store.revokeTokensForKey('dead', Date.now() - KEY_REVOCATION_TTL_MS - 1);
        await store.revokeToken('live', Date.now() + 60_000);
        await recorder.waitFor(isEventType('token'));
        expect(await store.isTokenRevoked('dead')).toBe(false);
        expect(await store.keyRevokedAt('dead')).toBeUndefined();
        const revocations = await store.loadRevocations();
        expect([...revocations.tokens.keys()]).toEqual(['live']);
        expect(revocations.keys.size).toBe(0);
        expect(recorder.events.map((event) => event.type)).toEqual(['token']);
        await recorder.stop();
      });

      it('delivers to every watcher until it unsubscribes, and never inside the revoking call', async () => {
        const first = await recordRevocations(store);
        const second = await recordRevocations(store);
        let calling = false;
        let deliveredDuringCall = false;
        const stopSync = await store.watchRevocations(() => {
          if (calling) deliveredDuringCall = true;
        });
        calling = true;
        const revoking = store.revokeToken('j1', Date.now() + 60_000);
        calling = false;
        await revoking;
        await first.waitFor(isEventType('token'));
        await second.waitFor(isEventType('token'));
        expect(deliveredDuringCall).toBe(false);

        await second.stop();
        await stopSync();
        await store.revokeToken('j2', Date.now() + 60_000);
        await first.waitFor((event) => event.type === 'token' && event.jti === 'j2');
        expect(second.events).toHaveLength(1);
        await first.stop();
      });

      it('keeps delivering to other watchers when one throws', async () => {
        const stopThrowing = await store.watchRevocations(() => {
          throw new Error('listener failed');
        });
        const recorder = await recordRevocations(store);
        await store.revokeTokensForKey('k1', Date.now());
        await recorder.waitFor(isEventType('key'));
        await stopThrowing();
        await recorder.stop();
      });

      it('rejects malformed revocations with a TypeError', async () => {
        await expect(store.revokeToken('', Date.now() + 1000)).rejects.toBeInstanceOf(TypeError);
        await expect(store.revokeToken('j1', 1.5)).rejects.toBeInstanceOf(TypeError);
        await expect(store.revokeTokensForKey('', Date.now())).rejects.toBeInstanceOf(TypeError);
        await expect(store.revokeTokensForKey('k1', Number.NaN)).rejects.toBeInstanceOf(TypeError);
        const revocations = await store.loadRevocations();
        expect(revocations.tokens.size + revocations.keys.size).toBe(0);
      });
    });

    describe('audit log', () => {
      it('lists the entries of a tenant newest first, and only those', async () => {
        const other = await scope.open();
        const entries = [1, 2, 3].map((sequence) => makeAuditEntry(sequence));
        for (const entry of entries) await store.appendAudit('t1', entry);
        await store.appendAudit('t2', makeAuditEntry(9, { outcome: 'failure', message: 'no such key' }));

        expect(await other.listAudit('t1', 10)).toEqual([...entries].reverse());
        expect(await other.listAudit('t2', 10)).toEqual([
          makeAuditEntry(9, { outcome: 'failure', message: 'no such key' }),
        ]);
        expect(await other.listAudit('t3', 10)).toEqual([]);
      });

      it('orders by id, whatever the order of the appends', async () => {
        for (const sequence of [3, 1, 5, 2, 4]) await store.appendAudit('t1', makeAuditEntry(sequence));
        expect(ids(await store.listAudit('t1', 10))).toEqual([
          'a000005',
          'a000004',
          'a000003',
          'a000002',
          'a000001',
        ]);
      });

      it('pages with limit and before', async () => {
        await Promise.all(
          Array.from({ length: 12 }, (_, index) => store.appendAudit('t1', makeAuditEntry(index + 1))),
        );
        const first = await store.listAudit('t1', 5);
        expect(ids(first)).toEqual(['a000012', 'a000011', 'a000010', 'a000009', 'a000008']);
        const second = await store.listAudit('t1', 5, first.at(-1)?.id);
        expect(ids(second)).toEqual(['a000007', 'a000006', 'a000005', 'a000004', 'a000003']);
        const third = await store.listAudit('t1', 5, second.at(-1)?.id);
        expect(ids(third)).toEqual(['a000002', 'a000001']);
        expect(await store.listAudit('t1', 5, 'a000001')).toEqual([]);
        // `before` need not be a stored id: entries with a smaller id follow it.
        expect(ids(await store.listAudit('t1', 2, 'a000004x'))).toEqual(['a000004', 'a000003']);
        expect(await store.listAudit('t1', 0)).toEqual([]);
      });

      it('rejects malformed entries and queries with a TypeError', async () => {
        await expect(store.appendAudit('t1', makeAuditEntry(1, { id: '' }))).rejects.toBeInstanceOf(
          TypeError,
        );
        await expect(
          store.appendAudit('t1', makeAuditEntry(1, { outcome: 'maybe' as AuditEntry['outcome'] })),
        ).rejects.toBeInstanceOf(TypeError);
        await expect(store.listAudit('t1', -1)).rejects.toBeInstanceOf(TypeError);
        await expect(store.listAudit('t1', 1.5)).rejects.toBeInstanceOf(TypeError);
        expect(await store.listAudit('t1', 10)).toEqual([]);
      });
    });

    describe('cache entries', () => {
      it('stores an entry for its TTL, read by another store, absent before and after', async () => {
        const other = await scope.open();
        expect(await store.getCacheEntry('k1')).toBeUndefined();
        await store.setCacheEntry('k1', '{"status":200,"body":"hi"}', 60_000);
        expect(await store.getCacheEntry('k1')).toBe('{"status":200,"body":"hi"}');
        expect(await other.getCacheEntry('k1')).toBe('{"status":200,"body":"hi"}');
        expect(await other.getCacheEntry('k2')).toBeUndefined();
      });

      it('expires an entry after its TTL', async () => {
        await store.setCacheEntry('short', 'v', 300);
        await store.setCacheEntry('long', 'v', 60_000);
        expect(await store.getCacheEntry('short')).toBe('v');
        await vi.waitFor(async () => expect(await store.getCacheEntry('short')).toBeUndefined(), waitOptions);
        expect(await store.getCacheEntry('long')).toBe('v');
      });

      it('overwrites an entry, with the new TTL', async () => {
        await store.setCacheEntry('k1', 'old', 60_000);
        await store.setCacheEntry('k1', 'new', 300);
        expect(await store.getCacheEntry('k1')).toBe('new');
        await vi.waitFor(async () => expect(await store.getCacheEntry('k1')).toBeUndefined(), waitOptions);
        await store.setCacheEntry('k1', 'again', 60_000);
        expect(await store.getCacheEntry('k1')).toBe('again');
      });

      it('keeps values verbatim: empty, non-ASCII, SSE bytes, large', async () => {
        const values = ['', 'ünïcødé 🚀', 'data: {"a":1}\n\ndata: [DONE]\n\n', 'x'.repeat(1 << 20)];
        await Promise.all(values.map((value, index) => store.setCacheEntry(`v${index}`, value, 60_000)));
        for (const [index, value] of values.entries()) {
          expect(await store.getCacheEntry(`v${index}`)).toBe(value);
        }
      });

      it('rejects malformed keys, values and TTLs with a TypeError', async () => {
        await expect(store.setCacheEntry('', 'v', 1000)).rejects.toBeInstanceOf(TypeError);
        await expect(store.setCacheEntry('k', 'v', 0)).rejects.toBeInstanceOf(TypeError);
        await expect(store.setCacheEntry('k', 'v', 1.5)).rejects.toBeInstanceOf(TypeError);
        await expect(store.setCacheEntry('k', 'v', Number.NaN)).rejects.toBeInstanceOf(TypeError);
        await expect(store.setCacheEntry('k', 42 as unknown as string, 1000)).rejects.toBeInstanceOf(
          TypeError,
        );
        await expect(store.getCacheEntry('')).rejects.toBeInstanceOf(TypeError);
        expect(await store.getCacheEntry('k')).toBeUndefined();
      });
    });

    describeStoredResponsesContract(
      () => store,
      () => scope.open(),
    );

    describe('locks', () => {
      it('gives a lock to exactly one of 20 concurrent acquirers on two stores', async () => {
        const other = await scope.open();
        const tokens = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            (index % 2 === 0 ? store : other).acquireLock('swr:k1', 60_000),
          ),
        );
        const held = tokens.filter((token) => token !== undefined);
        expect(held).toHaveLength(1);
        expect(typeof held[0]).toBe('string');
        // Other locks are independent.
        expect(await other.acquireLock('swr:k2', 60_000)).toBeDefined();
      });

      it('is released only by its holder, and can be taken again after', async () => {
        const other = await scope.open();
        const token = (await store.acquireLock('l1', 60_000)) as string;
        expect(token).toBeDefined();
        await other.releaseLock('l1', 'not-the-token');
        await store.releaseLock('l2', token);
        expect(await other.acquireLock('l1', 60_000)).toBeUndefined();
        await other.releaseLock('l1', token);
        const next = await other.acquireLock('l1', 60_000);
        expect(next).toBeDefined();
        expect(next).not.toBe(token);
        // A stale holder's release (its token) does not free the new holder's lock.
        await store.releaseLock('l1', token);
        expect(await store.acquireLock('l1', 60_000)).toBeUndefined();
      });

      it('frees a lock when it expires, and a late release then leaves the new holder alone', async () => {
        const token = (await store.acquireLock('l1', 300)) as string;
        expect(await store.acquireLock('l1', 300)).toBeUndefined();
        let next: string | undefined;
        await vi.waitFor(async () => {
          next = await store.acquireLock('l1', 60_000);
          expect(next).toBeDefined();
        }, waitOptions);
        await store.releaseLock('l1', token);
        expect(await store.acquireLock('l1', 60_000)).toBeUndefined();
        await store.releaseLock('l1', next as string);
        expect(await store.acquireLock('l1', 60_000)).toBeDefined();
      });

      it('rejects malformed names, TTLs and tokens with a TypeError', async () => {
        await expect(store.acquireLock('', 1000)).rejects.toBeInstanceOf(TypeError);
        await expect(store.acquireLock('l1', 0)).rejects.toBeInstanceOf(TypeError);
        await expect(store.acquireLock('l1', 2.5)).rejects.toBeInstanceOf(TypeError);
        await expect(store.releaseLock('l1', '')).rejects.toBeInstanceOf(TypeError);
        expect(await store.acquireLock('l1', 1000)).toBeDefined();
      });
    });

    describe('cache invalidation', () => {
      it('starts every workspace at generation 0, with no namespaces or tags', async () => {
        expect(await store.loadCacheScope('w1')).toEqual({
          generation: 0,
          namespaces: new Map(),
          tags: new Map(),
        });
      });

      it('purges a workspace and its namespaces independently, seen by another store and on its feed', async () => {
        const other = await scope.open();
        const recorder = await recordCacheInvalidations(other);
        expect(await store.purgeCache('w1')).toBe(1);
        expect(await store.purgeCache('w1', 'docs')).toBe(1);
        expect(await store.purgeCache('w1', 'docs')).toBe(2);
        expect(await store.purgeCache('w1', 'chat')).toBe(1);
        expect(await other.purgeCache('w1')).toBe(2);
        expect(await store.purgeCache('w2', 'docs')).toBe(1);

        expect(await other.loadCacheScope('w1')).toEqual({
          generation: 2,
          namespaces: new Map([
            ['docs', 2],
            ['chat', 1],
          ]),
          tags: new Map(),
        });
        expect(await other.loadCacheScope('w2')).toEqual({
          generation: 0,
          namespaces: new Map([['docs', 1]]),
          tags: new Map(),
        });
        await vi.waitFor(() => expect(recorder.events).toHaveLength(6), waitOptions);
        // In order per workspace; two workspaces may be on two Redis Cluster nodes, whose
        // announcements can arrive in either order.
        const of = (workspaceId: string) =>
          recorder.events.filter((event) => 'workspaceId' in event && event.workspaceId === workspaceId);
        expect(of('w1')).toEqual([
          { type: 'purge', workspaceId: 'w1', generation: 1 },
          { type: 'purge', workspaceId: 'w1', namespace: 'docs', generation: 1 },
          { type: 'purge', workspaceId: 'w1', namespace: 'docs', generation: 2 },
          { type: 'purge', workspaceId: 'w1', namespace: 'chat', generation: 1 },
          { type: 'purge', workspaceId: 'w1', generation: 2 },
        ]);
        expect(of('w2')).toEqual([{ type: 'purge', workspaceId: 'w2', namespace: 'docs', generation: 1 }]);
        await recorder.stop();
      });

      it('gives each of 20 concurrent purges on two stores its own generation', async () => {
        const other = await scope.open();
        const generations = await Promise.all(
          Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : other).purgeCache('w1', 'n')),
        );
        expect([...generations].sort((a, b) => a - b)).toEqual(
          Array.from({ length: 20 }, (_, index) => index + 1),
        );
        expect((await store.loadCacheScope('w1')).namespaces.get('n')).toBe(20);
      });

      it('records tag times that never move back, seen by another store and on its feed', async () => {
        const other = await scope.open();
        const recorder = await recordCacheInvalidations(other);
        const atMs = Date.now();
        await store.invalidateCacheTags('w1', ['product:1', 'catalog'], atMs);
        // Earlier for one tag (left alone), later for another, new for a third.
        await store.invalidateCacheTags('w1', ['product:1', 'catalog', 'user:7'], atMs - 5000);
        await other.invalidateCacheTags('w1', ['catalog'], atMs + 10);
        await store.invalidateCacheTags('w2', ['catalog'], atMs - 1);

        expect(await other.loadCacheScope('w1')).toEqual({
          generation: 0,
          namespaces: new Map(),
          tags: new Map([
            ['product:1', atMs],
            ['catalog', atMs + 10],
            ['user:7', atMs - 5000],
          ]),
        });
        expect((await store.loadCacheScope('w2')).tags).toEqual(new Map([['catalog', atMs - 1]]));
        await vi.waitFor(() => expect(recorder.events).toHaveLength(4), waitOptions);
        // Each announces only the tags now at its time: a mirror can simply set them. In order per
        // workspace; two workspaces may be on two Redis Cluster nodes, whose announcements can
        // arrive in either order.
        const of = (workspaceId: string) =>
          recorder.events.filter((event) => 'workspaceId' in event && event.workspaceId === workspaceId);
        expect(of('w1')).toEqual([
          { type: 'tags', workspaceId: 'w1', tags: ['product:1', 'catalog'], atMs },
          { type: 'tags', workspaceId: 'w1', tags: ['user:7'], atMs: atMs - 5000 },
          { type: 'tags', workspaceId: 'w1', tags: ['catalog'], atMs: atMs + 10 },
        ]);
        expect(of('w2')).toEqual([{ type: 'tags', workspaceId: 'w2', tags: ['catalog'], atMs: atMs - 1 }]);
        await recorder.stop();
      });

      it('announces nothing for an invalidation that moves no tag, and de-duplicates tags', async () => {
        const recorder = await recordCacheInvalidations(store);
        const atMs = Date.now();
        await store.invalidateCacheTags('w1', ['a', 'a', 'b'], atMs);
        await store.invalidateCacheTags('w1', ['a'], atMs - 1);
        await store.invalidateCacheTags('w1', [], atMs + 1);
        // Announced again at the same time: idempotent, so a retry is seen.
        await store.invalidateCacheTags('w1', ['b'], atMs);
        await vi.waitFor(() => expect(recorder.events).toHaveLength(2), waitOptions);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(recorder.events).toEqual([
          { type: 'tags', workspaceId: 'w1', tags: ['a', 'b'], atMs },
          { type: 'tags', workspaceId: 'w1', tags: ['b'], atMs },
        ]);
        await recorder.stop();
      });

      it('keeps the latest of 20 concurrent invalidations of a tag on two stores', async () => {
        const other = await scope.open();
        const base = Date.now();
        const times = Array.from({ length: 20 }, (_, index) => base + ((index * 7) % 20));
        await Promise.all(
          times.map((atMs, index) =>
            (index % 2 === 0 ? store : other).invalidateCacheTags('w1', ['t'], atMs),
          ),
        );
        expect((await store.loadCacheScope('w1')).tags.get('t')).toBe(Math.max(...times));
      });

      it('round-trips namespaces, tags and workspace ids with odd characters', async () => {
        const other = await scope.open();
        const recorder = await recordCacheInvalidations(other);
        const atMs = Date.now();
        for (const name of ODD_NAMES) await store.purgeCache('w:1 ü', name);
        await store.invalidateCacheTags('w:1 ü', ODD_NAMES, atMs);
        // A workspace whose id extends another's with the key separator is still its own.
        await store.purgeCache('w:1 ü:docs');

        const state = await other.loadCacheScope('w:1 ü');
        expect(state.generation).toBe(0);
        expect(state.namespaces).toEqual(new Map(ODD_NAMES.map((name) => [name, 1])));
        expect(state.tags).toEqual(new Map(ODD_NAMES.map((name) => [name, atMs])));
        expect(Object.getPrototypeOf(state.namespaces)).toBe(Map.prototype);
        expect(await other.loadCacheScope('w:1 ü:docs')).toEqual({
          generation: 1,
          namespaces: new Map(),
          tags: new Map(),
        });
        await vi.waitFor(() => expect(recorder.events).toHaveLength(ODD_NAMES.length + 2), waitOptions);
        expect(recorder.events.slice(0, ODD_NAMES.length)).toEqual(
          ODD_NAMES.map((namespace) => ({ type: 'purge', workspaceId: 'w:1 ü', namespace, generation: 1 })),
        );
        expect(recorder.events.at(-2)).toEqual({
          type: 'tags',
          workspaceId: 'w:1 ü',
          tags: [...ODD_NAMES],
          atMs,
        });
        await recorder.stop();
      });

      it('delivers to every watcher until it unsubscribes, and never inside the invalidating call', async () => {
        const first = await recordCacheInvalidations(store);
        const second = await recordCacheInvalidations(store);
        let calling = false;
        let deliveredDuringCall = false;
        const stopSync = await store.watchCacheInvalidations(() => {
          if (calling) deliveredDuringCall = true;
        });
        calling = true;
        const purging = store.purgeCache('w1');
        calling = false;
        await purging;
        await first.waitFor(isCacheEventType('purge'));
        await second.waitFor(isCacheEventType('purge'));
        expect(deliveredDuringCall).toBe(false);

        await second.stop();
        await stopSync();
        await store.invalidateCacheTags('w1', ['t'], Date.now());
        await first.waitFor(isCacheEventType('tags'));
        expect(second.events).toHaveLength(1);
        expect(first.events.map((event) => event.type)).toEqual(['purge', 'tags']);
        await first.stop();
      });

      it('rejects malformed purges and invalidations with a TypeError', async () => {
        await expect(store.purgeCache('')).rejects.toBeInstanceOf(TypeError);
        await expect(store.purgeCache('w1', '')).rejects.toBeInstanceOf(TypeError);
        await expect(store.invalidateCacheTags('', ['t'], Date.now())).rejects.toBeInstanceOf(TypeError);
        await expect(store.invalidateCacheTags('w1', [''], Date.now())).rejects.toBeInstanceOf(TypeError);
        await expect(
          store.invalidateCacheTags('w1', 't' as unknown as string[], Date.now()),
        ).rejects.toBeInstanceOf(TypeError);
        await expect(store.invalidateCacheTags('w1', ['t'], 1.5)).rejects.toBeInstanceOf(TypeError);
        await expect(store.loadCacheScope('')).rejects.toBeInstanceOf(TypeError);
        expect(await store.loadCacheScope('w1')).toEqual({
          generation: 0,
          namespaces: new Map(),
          tags: new Map(),
        });
      });
    });

    describe('audit log with a limit of 5', () => {
      const limited = new ScopeTracker(() => createScope({ auditLimit: 5 }));
      afterEach(async () => {
        await limited.end();
      });

      it('keeps only the newest entries of each tenant', async () => {
        const small = await limited.begin();
        for (let sequence = 1; sequence <= 8; sequence += 1)
          await small.appendAudit('t1', makeAuditEntry(sequence));
        await small.appendAudit('t2', makeAuditEntry(1));
        expect(ids(await small.listAudit('t1', 100))).toEqual([
          'a000008',
          'a000007',
          'a000006',
          'a000005',
          'a000004',
        ]);
        expect(ids(await small.listAudit('t1', 100, 'a000005'))).toEqual(['a000004']);
        expect(ids(await small.listAudit('t2', 100))).toEqual(['a000001']);
        // An entry older than all those kept is trimmed at once.
        await small.appendAudit('t1', makeAuditEntry(2));
        expect(ids(await small.listAudit('t1', 100))).toHaveLength(5);
        expect(ids(await small.listAudit('t1', 100))).not.toContain('a000002');
      });
    });
  });
}
