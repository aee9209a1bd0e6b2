/**
 * Usage analytics: each answered request, a cache hit included, adds to one rolled-up
 * cell of the runtime store: its workspace, its UTC day, and the cell of (model, key, token,
 * Connection, model route). The control plane's `usage` query sums cells by the dimensions asked for. No
 * per-request row is ever kept; a workspace's day holds one cell per combination actually used.
 */
import type { Principal } from '../auth/principal.ts';
import { cacheScopeId } from '../cache/cache-key.ts';
import type { Logger } from '../observability/logger.ts';
import { isUnavailability, StoreTimeoutError } from '../stores/store-breaker.ts';
import { emptyUsageTotals, type RuntimeStore, USAGE_FIELDS, type UsageTotals } from '../stores/types.ts';

const SEPARATOR = '\u001f';

/**
 * What a cell is made of; '' where the request had none (no token, no Connection, no model route).
 * Cells written before routes existed have four fields: their route reads as ''.
 */
export interface UsageCell {
  model: string;
  keyId: string;
  tokenId: string;
  connection: string;
  /** The model route the request named (its `model`); the target that served is `model`. */
  route: string;
}

export function encodeCell(cell: UsageCell): string {
  const fields = [cell.model, cell.keyId, cell.tokenId, cell.connection];
  if (cell.route !== '') fields.push(cell.route);
  return fields.join(SEPARATOR);
}

export function decodeCell(encoded: string): UsageCell {
  const [model = '', keyId = '', tokenId = '', connection = '', route = ''] = encoded.split(SEPARATOR);
  return { model, keyId, tokenId, connection, route };
}

/** `YYYY-MM-DD` of a time, in UTC. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export interface UsageRecorderOptions {
  runtime: RuntimeStore;
  log: Logger;
  /** How long a day's cells are kept (USAGE_RETENTION_DAYS). */
  retentionDays: number;
  /** How often what was recorded is added to the store (USAGE_FLUSH_INTERVAL_MS). */
  flushIntervalMs: number;
  /** Cells held between flushes at most (a change to one more is dropped and counted). Default 100,000. */
  maxCells?: number;
}

/** What one request adds. */
export interface RequestUsage {
  principal: Principal;
  /** The model as the client named it; through a model route, the target that served. */
  model: string;
  /** The model route the request named, if any. */
  route?: string | undefined;
  connectionSlug: string | undefined;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  /** A cache hit: what the cached answer cost when it was made. */
  savedMicros?: number;
}

interface Pending {
  scopeId: string;
  day: string;
  cell: string;
  totals: UsageTotals;
}

/**
 * Sums requests per cell in the process and adds the sums to the store every `flushIntervalMs`
 * (one write per cell, not per request: the request path never waits on analytics, and a busy
 * gateway sends a few cells a second). A flush the store cannot take is kept for the next one. At
 * most the last interval is lost if the process dies.
 */
export class UsageRecorder {
  readonly #options: UsageRecorderOptions;
  #pending = new Map<string, Pending>();
  readonly #timer: NodeJS.Timeout;
  #warnedAt = Number.NEGATIVE_INFINITY;
  #flushing: Promise<void> | undefined;
  /** Changes dropped because too many cells were waiting. */
  dropped = 0;
  #day = '';
  #dayEndsAt = 0;

  constructor(options: UsageRecorderOptions) {
    this.#options = options;
    this.#timer = setInterval(() => void this.flush(), options.flushIntervalMs);
    this.#timer.unref();
  }

  record(usage: RequestUsage): void {
    const { principal } = usage;
    const scopeId = cacheScopeId(principal.tenantId, principal.workspaceId);
    const day = this.#today();
    let cell = `${usage.model}${SEPARATOR}${principal.keyId}${SEPARATOR}${principal.token?.jti ?? ''}${SEPARATOR}${usage.connectionSlug ?? ''}`;
    if (usage.route !== undefined && usage.route !== '') cell += `${SEPARATOR}${usage.route}`;
    const key = `${scopeId}\u0000${day}\u0000${cell}`;
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      if (this.#pending.size >= (this.#options.maxCells ?? 100_000)) {
        this.dropped += 1;
        return;
      }
      pending = { scopeId, day, cell, totals: emptyUsageTotals() };
      this.#pending.set(key, pending);
    }
    const totals = pending.totals;
    totals.requests += 1;
    totals.inputTokens += usage.inputTokens;
    totals.outputTokens += usage.outputTokens;
    totals.costMicros += usage.costMicros;
    if (usage.savedMicros !== undefined) {
      totals.cacheHits += 1;
      totals.savedMicros += usage.savedMicros;
    }
  }

  /** Today's UTC day, formatted once a day rather than per request. */
  #today(): string {
    const now = Date.now();
    if (now >= this.#dayEndsAt) {
      this.#day = utcDay(now);
      this.#dayEndsAt = (Math.floor(now / 86_400_000) + 1) * 86_400_000;
    }
    return this.#day;
  }

  /** Adds what was recorded to the store; resolves when done (a failure keeps it for the next flush). */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushAll().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  /** A cell the store did not take, kept for the next flush and added to what came meanwhile. */
  #keep(key: string, entry: Pending): void {
    const current = this.#pending.get(key);
    if (current === undefined) this.#pending.set(key, entry);
    else for (const field of USAGE_FIELDS) current.totals[field] += entry.totals[field];
  }

  async #flushAll(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    const ttlSeconds = this.#options.retentionDays * 86_400;
    const results = await Promise.allSettled(
      [...batch.values()].map((entry) =>
        this.#options.runtime.recordUsage(entry.scopeId, entry.day, entry.cell, entry.totals, ttlSeconds),
      ),
    );
    let failure: unknown;
    [...batch].forEach(([key, entry], index) => {
      const result = results[index];
      if (result?.status !== 'rejected') return;
      failure ??= result.reason;
      if (result.reason instanceof StoreTimeoutError) {
        // A stalled store still holds the write and makes it when it wakes: kept only if it never does.
        result.reason.outcome.then(undefined, (error: unknown) => {
          if (isUnavailability(error)) this.#keep(key, entry);
        });
        return;
      }
      this.#keep(key, entry);
    });
    if (failure === undefined || isUnavailability(failure)) return;
    const now = Date.now();
    if (now - this.#warnedAt < 60_000) return;
    this.#warnedAt = now;
    this.#options.log.warn({ err: failure }, 'recording usage analytics failed; kept for the next flush');
  }
}
