/**
 * What this pod knows of a model route's targets (issue #25): each target's circuit breaker and
 * its requests in flight. Per pod on purpose: a breaker reacts within a request or two, with no
 * store round trip, and a pod that sees a target fail stops sending to it whatever the others see.
 *
 * A target's circuit is closed until `consecutiveFailures` attempts in a row failed; it is then open
 * (skipped) for `openSeconds`; after that one request may probe it (half-open) while the others
 * still skip it: the probe's success closes it, its failure opens it again for `openSeconds`.
 *
 * Targets are known by their route (tenant, workspace or tenant-wide, model) and their model string,
 * so a route's update (a weight changed) keeps what was learned of its targets. Only targets with
 * something to remember (a failure, an open circuit, a request in flight) hold an entry: the map
 * stays as small as the trouble it tracks.
 */
import type { ModelRouteRecord, ModelRouteTargetRecord } from '../../stores/records.ts';

/** A circuit as selection sees it. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** What an attempt tells the breaker of its target once it is over. */
export type AttemptVerdict =
  /** The target answered (a success, or an answer that is the request's fault, such as a 400). */
  | 'healthy'
  /** The target failed (unreachable, silent, overloaded, refusing its credential). */
  | 'failed'
  /** Nothing was learned (the client went away). */
  | 'unknown';

interface TargetHealth {
  failures: number;
  /** Date.now() until which the circuit is open; 0 when it has not opened. */
  openUntil: number;
  /** A half-open probe is in flight: the other requests still skip the target. */
  probing: boolean;
  inFlight: number;
}

/** One attempt's hold on its target: counted in flight, and the probe when it claimed one. */
export interface TargetLease {
  readonly key: string;
  readonly probe: boolean;
}

type Breaker = ModelRouteRecord['circuitBreaker'];

/** The key of a target: its route's identity and its model string, cached per (frozen) record. */
const KEYS = new WeakMap<ModelRouteTargetRecord, string>();

export function targetKey(route: ModelRouteRecord, target: ModelRouteTargetRecord): string {
  let key = KEYS.get(target);
  if (key === undefined) {
    key = `${route.tenantId}\u0000${route.workspaceId ?? ''}\u0000${route.model}\u0000${target.model}`;
    KEYS.set(target, key);
  }
  return key;
}

export class RouteHealth {
  readonly #targets = new Map<string, TargetHealth>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  now(): number {
    return this.#now();
  }

  stateOf(key: string, now = this.#now()): CircuitState {
    const health = this.#targets.get(key);
    if (health === undefined || health.openUntil === 0) return 'closed';
    return now < health.openUntil ? 'open' : 'half-open';
  }

  /** Whether a request may go to the target now: closed, or half-open with no probe in flight. */
  isAvailable(key: string, now = this.#now()): boolean {
    const health = this.#targets.get(key);
    if (health === undefined || health.openUntil === 0) return true;
    return now >= health.openUntil && !health.probing;
  }

  /** Requests to the target in flight on this pod. */
  inFlight(key: string): number {
    return this.#targets.get(key)?.inFlight ?? 0;
  }

  /**
   * Milliseconds until one of these targets may be tried again: the soonest end of an open period
   * (a target being probed: counted as available in a second). 0 when one is available now.
   */
  millisUntilAvailable(keys: readonly string[], now = this.#now()): number {
    let soonest = Number.POSITIVE_INFINITY;
    for (const key of keys) {
      const health = this.#targets.get(key);
      if (health === undefined || health.openUntil === 0) return 0;
      const wait = health.probing ? 1000 : Math.max(0, health.openUntil - now);
      if (wait < soonest) soonest = wait;
    }
    return soonest === Number.POSITIVE_INFINITY ? 0 : soonest;
  }

  /** An attempt starts: counted in flight, and it claims the probe of a half-open target. */
  begin(key: string, now = this.#now()): TargetLease {
    let health = this.#targets.get(key);
    if (health === undefined) {
      health = { failures: 0, openUntil: 0, probing: false, inFlight: 0 };
      this.#targets.set(key, health);
    }
    health.inFlight += 1;
    const probe = health.openUntil !== 0 && now >= health.openUntil && !health.probing;
    if (probe) health.probing = true;
    return { key, probe };
  }

  /** The attempt is over: its verdict moves the target's circuit. */
  end(lease: TargetLease, verdict: AttemptVerdict, breaker: Breaker, now = this.#now()): void {
    const health = this.#targets.get(lease.key);
    if (health === undefined) return;
    health.inFlight = Math.max(0, health.inFlight - 1);
    if (lease.probe) health.probing = false;
    if (verdict === 'healthy') {
      health.failures = 0;
      health.openUntil = 0;
    } else if (verdict === 'failed') {
      health.failures += 1;
      const open = health.openUntil !== 0 && now < health.openUntil;
      // A failed probe opens the circuit again; so does the threshold reached while closed. A late
      // failure of a request that started before the circuit opened does not extend it.
      if (lease.probe || (!open && health.failures >= Math.max(1, breaker.consecutiveFailures)))
        health.openUntil = now + breaker.openSeconds * 1000;
    }
    if (health.inFlight === 0 && health.failures === 0 && health.openUntil === 0)
      this.#targets.delete(lease.key);
  }

  /** Circuits open now on this pod (half-open ones included: they are not closed yet). */
  openCircuits(): number {
    let open = 0;
    for (const health of this.#targets.values()) if (health.openUntil !== 0) open += 1;
    return open;
  }
}
