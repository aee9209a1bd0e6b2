/**
 * Which target of a model route an attempt goes to (issue #25). Targets form tiers by `priority`
 * (lower first; a higher tier is a fallback). An attempt goes to the lowest tier that has a target
 * this request has not tried yet whose circuit lets it through (route-health.ts); within the tier:
 *
 * - `weighted`: at random in proportion to `weight`;
 * - `leastBusy`: the target with the fewest requests in flight on this pod, ties broken at random
 *   in proportion to `weight`.
 *
 * A target of weight 0 is never picked by weight: it stands by, taken only once the weighted
 * targets of its tier are tried or open. Each retry picks again among the targets not tried yet,
 * falling to the next tier when a tier is exhausted. Once every target was tried, a retry starts
 * over among those that may be tried again (not the ones that refused the request: 401, 403, 404),
 * each try of the same target after a backoff (retry-backoff.ts).
 */
import type { ModelRouteRecord, ModelRouteTargetRecord } from '../../stores/records.ts';
import type { AttemptFailure } from './attempt-failure.ts';
import { type RouteHealth, targetKey } from './route-health.ts';

/** A number in [0, 1), like Math.random (seeded in tests: createSeededRandom). */
export type RandomSource = () => number;

/** One target picked for an attempt. */
export interface PickedTarget {
  target: ModelRouteTargetRecord;
  /** Its key in RouteHealth. */
  key: string;
  /** How many times this request tried it already (0: a first try). */
  triedBefore: number;
  /** Its Retry-After on its last failure in this request. */
  retryAfterMs: number | undefined;
}

/** The route's targets by tier, lowest priority first, in their order within a tier; once per record. */
const TIERS = new WeakMap<ModelRouteRecord, readonly (readonly ModelRouteTargetRecord[])[]>();

function tiersOf(route: ModelRouteRecord): readonly (readonly ModelRouteTargetRecord[])[] {
  let tiers = TIERS.get(route);
  if (tiers === undefined) {
    const byPriority = new Map<number, ModelRouteTargetRecord[]>();
    for (const target of route.targets) {
      const tier = byPriority.get(target.priority);
      if (tier === undefined) byPriority.set(target.priority, [target]);
      else tier.push(target);
    }
    tiers = [...byPriority].sort(([a], [b]) => a - b).map(([, tier]) => tier);
    TIERS.set(route, tiers);
  }
  return tiers;
}

/** One request's walk through its route's targets. */
export class RouteSelection {
  readonly route: ModelRouteRecord;
  readonly #health: RouteHealth;
  readonly #random: RandomSource;
  /** Tries per target in this request. */
  readonly #tries = new Map<ModelRouteTargetRecord, number>();
  /** Targets tried in the current round (every target once before any twice). */
  readonly #round = new Set<ModelRouteTargetRecord>();
  /** Targets that refused the request (401, 403, 404): never tried again in it. */
  readonly #refused = new Set<ModelRouteTargetRecord>();
  readonly #retryAfter = new Map<ModelRouteTargetRecord, number>();

  constructor(route: ModelRouteRecord, health: RouteHealth, random: RandomSource) {
    this.route = route;
    this.#health = health;
    this.#random = random;
  }

  /**
   * The target of the next attempt, counted as tried; undefined when no target may be tried (each
   * refused the request, or has its circuit open).
   */
  pick(now = this.#health.now()): PickedTarget | undefined {
    let target = this.#pickUntried(now);
    if (target === undefined && this.#round.size > 0) {
      // Every target available was tried: a new round among those that may be tried again.
      this.#round.clear();
      target = this.#pickUntried(now);
    }
    if (target === undefined) return undefined;
    const triedBefore = this.#tries.get(target) ?? 0;
    this.#tries.set(target, triedBefore + 1);
    this.#round.add(target);
    return {
      target,
      key: targetKey(this.route, target),
      triedBefore,
      retryAfterMs: this.#retryAfter.get(target),
    };
  }

  /** An attempt at `target` failed: a refusal rules it out for this request; its Retry-After is kept. */
  failed(target: ModelRouteTargetRecord, failure: AttemptFailure): void {
    if (failure.kind === 'rejected') this.#refused.add(target);
    if (failure.retryAfterMs === undefined) this.#retryAfter.delete(target);
    else this.#retryAfter.set(target, failure.retryAfterMs);
  }

  /**
   * Milliseconds until a target this request has not ruled out may take a request (when `pick`
   * found none because their circuits are open): the answer's Retry-After.
   */
  millisUntilAvailable(now = this.#health.now()): number {
    const keys: string[] = [];
    for (const target of this.route.targets)
      if (!this.#refused.has(target)) keys.push(targetKey(this.route, target));
    return this.#health.millisUntilAvailable(keys, now);
  }

  #pickUntried(now: number): ModelRouteTargetRecord | undefined {
    for (const tier of tiersOf(this.route)) {
      const candidates: ModelRouteTargetRecord[] = [];
      let weighted = false;
      for (const target of tier) {
        if (this.#round.has(target) || this.#refused.has(target)) continue;
        if (!this.#health.isAvailable(targetKey(this.route, target), now)) continue;
        candidates.push(target);
        if (target.weight > 0) weighted = true;
      }
      if (candidates.length === 0) continue;
      // Weight 0 stands by: taken only when no weighted target of the tier is left.
      const pool = weighted ? candidates.filter((target) => target.weight > 0) : candidates;
      return this.#choose(pool);
    }
    return undefined;
  }

  #choose(pool: ModelRouteTargetRecord[]): ModelRouteTargetRecord {
    if (pool.length === 1) return pool[0] as ModelRouteTargetRecord;
    if (this.route.strategy !== 'leastBusy') return pickByWeight(pool, this.#random);
    let fewest = Number.POSITIVE_INFINITY;
    let idlest: ModelRouteTargetRecord[] = [];
    for (const target of pool) {
      const busy = this.#health.inFlight(targetKey(this.route, target));
      if (busy < fewest) {
        fewest = busy;
        idlest = [target];
      } else if (busy === fewest) idlest.push(target);
    }
    return idlest.length === 1 ? (idlest[0] as ModelRouteTargetRecord) : pickByWeight(idlest, this.#random);
  }
}

/** One of `choices` at random in proportion to its weight (the first when none has weight). */
export function pickByWeight(
  choices: readonly ModelRouteTargetRecord[],
  random: RandomSource,
): ModelRouteTargetRecord {
  let total = 0;
  for (const target of choices) total += Math.max(0, target.weight);
  const first = choices[0] as ModelRouteTargetRecord;
  if (total <= 0) return first;
  let point = random() * total;
  for (const target of choices) {
    point -= Math.max(0, target.weight);
    if (point < 0) return target;
  }
  // Rounding left a sliver past the last weight: the last weighted target.
  return choices.findLast((target) => target.weight > 0) ?? first;
}

/** A seeded source of numbers in [0, 1) (mulberry32): the same seed, the same sequence. */
export function createSeededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
