/**
 * The depth valve (DESIGN section 6): how many candidates a workspace's semantic lookups may scan,
 * so that a huge bucket cannot stall the gateway. Additive increase, multiplicative decrease: a
 * lookup whose scan (read and score) took longer than the budget, or that ran while too many of the
 * workspace's lookups were in flight, halves the depth (not below the floor); a quick one adds a
 * tenth of the ceiling back. Per process, per workspace; forgotten after an idle while.
 */
export interface DepthValveOptions {
  /** The most candidates one lookup scans (GATEWAY_SEMCACHE_MAX_DEPTH). */
  maxDepth: number;
  /** The fewest, however loaded. */
  minDepth: number;
  /** A scan slower than this shrinks the depth (GATEWAY_SEMCACHE_SCAN_BUDGET_MS). */
  budgetMs: number;
  /** More of one workspace's lookups in flight than this shrinks it too. */
  maxInFlight: number;
}

interface WorkspaceValve {
  depth: number;
  inFlight: number;
  usedAtMs: number;
}

const IDLE_MS = 10 * 60_000;

export class DepthValve {
  readonly #options: DepthValveOptions;
  readonly #workspaces = new Map<string, WorkspaceValve>();

  constructor(options: DepthValveOptions) {
    this.#options = options;
  }

  /** Opens a lookup: the depth it may scan, and `done` to call with how long its scan took. */
  open(workspaceId: string, nowMs = Date.now()): { depth: number; done(scanMs: number): void } {
    let valve = this.#workspaces.get(workspaceId);
    if (valve === undefined || nowMs - valve.usedAtMs > IDLE_MS) {
      valve = { depth: this.#options.maxDepth, inFlight: 0, usedAtMs: nowMs };
      this.#workspaces.set(workspaceId, valve);
      if (this.#workspaces.size > 10_000) this.#forgetIdle(nowMs);
    }
    valve.inFlight += 1;
    valve.usedAtMs = nowMs;
    const state = valve;
    const crowded = state.inFlight > this.#options.maxInFlight;
    let closed = false;
    return {
      depth: state.depth,
      done: (scanMs) => {
        if (closed) return;
        closed = true;
        state.inFlight -= 1;
        const { maxDepth, minDepth, budgetMs } = this.#options;
        if (scanMs > budgetMs || crowded) state.depth = Math.max(minDepth, Math.floor(state.depth / 2));
        else if (scanMs < budgetMs / 2)
          state.depth = Math.min(maxDepth, state.depth + Math.ceil(maxDepth / 10));
      },
    };
  }

  /** The workspace's current depth (the ceiling for one never seen). */
  depthOf(workspaceId: string): number {
    return this.#workspaces.get(workspaceId)?.depth ?? this.#options.maxDepth;
  }

  #forgetIdle(nowMs: number): void {
    for (const [workspaceId, valve] of this.#workspaces) {
      if (valve.inFlight === 0 && nowMs - valve.usedAtMs > IDLE_MS) this.#workspaces.delete(workspaceId);
    }
  }
}
