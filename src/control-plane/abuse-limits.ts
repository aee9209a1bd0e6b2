/**
 * Request-rate limits of the control plane's REST endpoints (per client address, per provisioning
 * key): fixed windows counted in the runtime store, so every control-plane process shares them.
 * Past the limit: 429 RATE_LIMITED with Retry-After. A runtime store that does not answer lets the
 * request through (counted as unlimited, logged): these limits slow abuse, they guard no money.
 */
import type { RateLimitSetting } from '../config/tenancy-settings.ts';
import type { Logger } from '../observability/logger.ts';
import type { RuntimeStore } from '../stores/types.ts';
import { RestError } from './rest-errors.ts';

export class AbuseLimiter {
  readonly #runtime: RuntimeStore;
  readonly #log: Logger;
  readonly #now: () => number;

  constructor(runtime: RuntimeStore, log: Logger, now: () => number = Date.now) {
    this.#runtime = runtime;
    this.#log = log;
    this.#now = now;
  }

  /**
   * Counts one request of `client` under `scope`; throws 429 past the limit. `client` is an
   * address or a key id (never a secret); `what` names it in the message.
   */
  async check(scope: string, client: string, limit: RateLimitSetting, what: string): Promise<void> {
    if (limit.count === Number.MAX_SAFE_INTEGER) return;
    const windowMs = limit.windowSeconds * 1000;
    const nowMs = this.#now();
    const window = Math.floor(nowMs / windowMs);
    let count: number;
    try {
      count = await this.#runtime.incrementCounter(
        `abuse:${scope}:${client}:${window}`,
        1,
        limit.windowSeconds + 60,
      );
    } catch (error) {
      this.#log.warn({ err: error, scope }, 'abuse limit unavailable: runtime store did not answer');
      return;
    }
    if (count > limit.count) {
      const retryAfter = Math.max(1, Math.ceil((windowMs - (nowMs % windowMs)) / 1000));
      throw new RestError(
        429,
        'RATE_LIMITED',
        `at most ${limit.count} requests per ${describeWindow(limit.windowSeconds)} per ${what}; retry later`,
        { headers: { 'retry-after': String(retryAfter) } },
      );
    }
  }
}

function describeWindow(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? 'day' : `${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return seconds === 1 ? 'second' : `${seconds} seconds`;
}
