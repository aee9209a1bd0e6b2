/**
 * Why one attempt of a model route failed, and what the route may do about it (issue #25). Read
 * from the error's class and the upstream's status, never from message text (STYLE rule 5):
 *
 * | failure                                                   | kind           | next                                |
 * |-----------------------------------------------------------|----------------|-------------------------------------|
 * | connection refused, reset or dropped before an answer     | `connectError` | retried when `retry.on` names it    |
 * | no first byte within `firstByteTimeoutMs` (or the timeout) | `timeout`      | retried when `retry.on` names it    |
 * | upstream 429                                              | `rateLimited`  | retried when `retry.on` names it    |
 * | upstream 500, 502, 503, 504, 529                          | `serverError`  | retried when `retry.on` names it    |
 * | upstream 401, 403, 404 (a Connection's key refused too)   | `rejected`     | another target, never the same one  |
 * | upstream 400 and everything else (the request is wrong)    | `final`        | answered as it is                   |
 * | the client went away                                      | `aborted`      | nothing more                        |
 */
import {
  ConnectionRejectedError,
  UpstreamDisconnectedError,
  UpstreamError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../../errors/gateway-error.ts';
import type { RouteRetryCondition } from '../../stores/records.ts';
import { UpstreamAbortedError } from '../../upstream/upstream-client.ts';
import type { AttemptVerdict } from './route-health.ts';

export type AttemptFailureKind = RouteRetryCondition | 'rejected' | 'final' | 'aborted';

export interface AttemptFailure {
  kind: AttemptFailureKind;
  /** The upstream's Retry-After, in milliseconds, when it sent one (whole seconds). */
  retryAfterMs: number | undefined;
}

/** Upstream statuses retried as the upstream's passing trouble. */
const SERVER_ERRORS: ReadonlySet<number> = new Set([500, 502, 503, 504, 529]);
/** Upstream statuses that say this target will not serve the request: another target may. */
const REJECTIONS: ReadonlySet<number> = new Set([401, 403, 404]);

function kindOfStatus(status: number): AttemptFailureKind {
  if (status === 429) return 'rateLimited';
  if (SERVER_ERRORS.has(status)) return 'serverError';
  if (REJECTIONS.has(status)) return 'rejected';
  return 'final';
}

function kindOf(error: unknown): AttemptFailureKind {
  if (error instanceof UpstreamAbortedError) return 'aborted';
  if (error instanceof UpstreamUnreachableError || error instanceof UpstreamDisconnectedError)
    return 'connectError';
  if (error instanceof UpstreamTimeoutError) return 'timeout';
  if (error instanceof ConnectionRejectedError) return 'rejected';
  if (error instanceof UpstreamError) return kindOfStatus(error.upstreamStatus);
  return 'final';
}

export function classifyAttemptFailure(error: unknown): AttemptFailure {
  const kind = kindOf(error);
  let retryAfterMs: number | undefined;
  if (error instanceof UpstreamError) {
    // Kept by mapUpstreamError only as whole seconds.
    const seconds = error.headers['retry-after'];
    if (seconds !== undefined && /^\d{1,6}$/.test(seconds)) retryAfterMs = Number(seconds) * 1000;
  }
  return { kind, retryAfterMs };
}

/** What the failure tells the target's circuit breaker. */
export function verdictOf(kind: AttemptFailureKind): AttemptVerdict {
  if (kind === 'aborted') return 'unknown';
  // The target answered, and the answer is the request's own fault.
  if (kind === 'final') return 'healthy';
  return 'failed';
}

/**
 * Whether the route goes on after this failure: to another target (`rejected`), or again when
 * the route retries on it; never after `final` or `aborted`.
 */
export function isRetried(kind: AttemptFailureKind, on: readonly RouteRetryCondition[]): boolean {
  if (kind === 'rejected') return true;
  if (kind === 'final' || kind === 'aborted') return false;
  return on.includes(kind);
}

/** The metric label of an attempt's outcome: a fixed set, snake_case. */
export const OUTCOME_LABEL: Readonly<Record<AttemptFailureKind | 'ok', string>> = {
  ok: 'ok',
  rateLimited: 'rate_limited',
  serverError: 'server_error',
  timeout: 'timeout',
  connectError: 'connect_error',
  rejected: 'rejected',
  final: 'final',
  aborted: 'aborted',
};
