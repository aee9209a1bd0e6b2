import { describe, expect, it } from 'vitest';
import type { ModelRouteRecord, ModelRouteTargetRecord } from '../../stores/records.ts';
import { RouteHealth, targetKey } from './route-health.ts';
import { createSeededRandom, pickByWeight, RouteSelection } from './target-selection.ts';

function route(
  targets: Array<Partial<ModelRouteTargetRecord> & { model: string }>,
  overrides: Partial<ModelRouteRecord> = {},
): ModelRouteRecord {
  return {
    v: 1,
    tenantId: 't1',
    model: 'chat',
    strategy: 'weighted',
    targets: targets.map((target) => ({ weight: 1, priority: 0, ...target })),
    retry: {
      maxAttempts: 3,
      on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
      backoffMs: 100,
      maxBackoffMs: 2000,
    },
    firstByteTimeoutMs: 30_000,
    circuitBreaker: { consecutiveFailures: 1, openSeconds: 30 },
    shared: false,
    ...overrides,
  };
}

const FAILED = { kind: 'serverError', retryAfterMs: undefined } as const;
const REFUSED = { kind: 'rejected', retryAfterMs: undefined } as const;

/** Opens the circuit of a target (the routes above open on one failure). */
function open(health: RouteHealth, record: ModelRouteRecord, index: number): void {
  const target = record.targets[index] as ModelRouteTargetRecord;
  health.end(health.begin(targetKey(record, target)), 'failed', record.circuitBreaker);
}

describe('RouteSelection', () => {
  it('picks by weight within statistical bounds (seeded)', () => {
    const record = route([
      { model: 'a', weight: 3 },
      { model: 'b', weight: 1 },
    ]);
    const health = new RouteHealth();
    const random = createSeededRandom(42);
    const counts = { a: 0, b: 0 };
    for (let i = 0; i < 10_000; i++) {
      const picked = new RouteSelection(record, health, random).pick();
      counts[picked?.target.model as 'a' | 'b'] += 1;
    }
    // 7,500 expected; 5 standard deviations (~43 each) either side.
    expect(counts.a).toBeGreaterThan(7500 - 220);
    expect(counts.a).toBeLessThan(7500 + 220);
  });

  it('gives the same picks for the same seed', () => {
    const record = route([{ model: 'a' }, { model: 'b' }, { model: 'c' }]);
    const picks = (seed: number) => {
      const random = createSeededRandom(seed);
      return Array.from(
        { length: 20 },
        () => new RouteSelection(record, new RouteHealth(), random).pick()?.target.model,
      );
    };
    expect(picks(7)).toEqual(picks(7));
    expect(picks(7)).not.toEqual(picks(8));
  });

  it('never picks a target of weight 0 while a weighted one of its tier is left', () => {
    const record = route([
      { model: 'standby', weight: 0 },
      { model: 'main', weight: 1 },
    ]);
    const health = new RouteHealth();
    const selection = new RouteSelection(record, health, createSeededRandom(1));
    expect(selection.pick()?.target.model).toBe('main');
    selection.failed(record.targets[1] as ModelRouteTargetRecord, FAILED);
    expect(selection.pick()?.target.model).toBe('standby');
  });

  it('with leastBusy, picks the target with the fewest requests in flight on this pod, ties by weight', () => {
    const record = route(
      [
        { model: 'a', weight: 1 },
        { model: 'b', weight: 1 },
      ],
      { strategy: 'leastBusy' },
    );
    const health = new RouteHealth();
    health.begin(targetKey(record, record.targets[0] as ModelRouteTargetRecord));
    for (let i = 0; i < 20; i++)
      expect(new RouteSelection(record, health, Math.random).pick()?.target.model).toBe('b');
    health.begin(targetKey(record, record.targets[1] as ModelRouteTargetRecord));
    // Tied at one each: by weight, so each is picked some of the time.
    const seen = new Set<string>();
    const random = createSeededRandom(3);
    for (let i = 0; i < 50; i++)
      seen.add(new RouteSelection(record, health, random).pick()?.target.model as string);
    expect([...seen].sort()).toEqual(['a', 'b']);
    const heavy = route(
      [
        { model: 'a', weight: 0 },
        { model: 'b', weight: 5 },
      ],
      { strategy: 'leastBusy' },
    );
    const idle = new RouteHealth();
    idle.begin(targetKey(heavy, heavy.targets[1] as ModelRouteTargetRecord));
    // Weight 0 stands by in leastBusy too: busier weighted targets go first.
    expect(new RouteSelection(heavy, idle, Math.random).pick()?.target.model).toBe('b');
  });

  it('retries among the targets not tried yet, then falls to the next priority', () => {
    const record = route([
      { model: 'a', priority: 0 },
      { model: 'b', priority: 0 },
      { model: 'fallback', priority: 1 },
    ]);
    const selection = new RouteSelection(record, new RouteHealth(), createSeededRandom(5));
    const first = selection.pick();
    const second = selection.pick();
    expect(new Set([first?.target.model, second?.target.model])).toEqual(new Set(['a', 'b']));
    expect(selection.pick()?.target.model).toBe('fallback');
  });

  it('skips a tier whose every target has its circuit open', () => {
    const record = route([
      { model: 'a', priority: 0 },
      { model: 'fallback', priority: 2 },
    ]);
    const health = new RouteHealth();
    open(health, record, 0);
    expect(new RouteSelection(record, health, Math.random).pick()?.target.model).toBe('fallback');
  });

  it('tries a target again (a new round) once every available target was tried, with its tries counted', () => {
    const record = route([{ model: 'only' }], {
      circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
    });
    const selection = new RouteSelection(record, new RouteHealth(), Math.random);
    const first = selection.pick();
    expect(first?.triedBefore).toBe(0);
    selection.failed(first?.target as ModelRouteTargetRecord, { kind: 'rateLimited', retryAfterMs: 1000 });
    const again = selection.pick();
    expect(again?.target.model).toBe('only');
    expect(again?.triedBefore).toBe(1);
    expect(again?.retryAfterMs).toBe(1000);
  });

  it('never tries again a target that refused the request (401, 403, 404)', () => {
    const record = route([{ model: 'a' }, { model: 'b', priority: 1 }]);
    const selection = new RouteSelection(record, new RouteHealth(), Math.random);
    const first = selection.pick();
    expect(first?.target.model).toBe('a');
    selection.failed(first?.target as ModelRouteTargetRecord, REFUSED);
    const second = selection.pick();
    expect(second?.target.model).toBe('b');
    selection.failed(second?.target as ModelRouteTargetRecord, FAILED);
    // A new round: b again, never a.
    expect(selection.pick()?.target.model).toBe('b');
    selection.failed(record.targets[1] as ModelRouteTargetRecord, REFUSED);
    expect(selection.pick()).toBeUndefined();
  });

  it('finds nothing when every target is open, and says when the soonest one closes', () => {
    const record = route([{ model: 'a' }, { model: 'b', priority: 1 }]);
    let now = 5_000_000;
    const health = new RouteHealth(() => now);
    open(health, record, 0);
    now += 10_000;
    open(health, record, 1);
    const selection = new RouteSelection(record, health, Math.random);
    expect(selection.pick()).toBeUndefined();
    expect(selection.millisUntilAvailable()).toBe(20_000);
    now += 20_000;
    // Half-open: one probe goes through.
    expect(selection.pick()?.target.model).toBe('a');
  });
});

describe('pickByWeight', () => {
  it('takes the first when no choice has weight, and never a target of weight 0 otherwise', () => {
    const zero = { model: 'z', weight: 0, priority: 0 };
    const one = { model: 'o', weight: 1, priority: 0 };
    expect(pickByWeight([zero, { ...zero, model: 'y' }], () => 0.9).model).toBe('z');
    expect(pickByWeight([zero, one], () => 0).model).toBe('o');
    expect(pickByWeight([one, zero], () => 0.999999).model).toBe('o');
  });
});
