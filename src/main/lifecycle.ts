/**
 * Graceful shutdown on SIGTERM or SIGINT, in three steps, one log line each:
 *
 * 1. drain: /readyz answers 503 at once and responses carry `connection: close`, while the
 *    listeners keep accepting and serving for the drain delay (Kubernetes removes a terminating
 *    pod from its Service's endpoints asynchronously: kube-proxy, ingress controllers and load
 *    balancers keep sending to it for a few seconds);
 * 2. close the listeners: no new connection; in-flight requests and streams finish, idle keep-alive
 *    connections are closed at once and busy ones as their response ends;
 * 3. close the stores and watchers, then exit 0.
 *
 * Steps 2 and 3 get the grace period; past it the process exits with code 1 and a warning. So a
 * process stops at most drain delay + grace after the signal (what terminationGracePeriodSeconds
 * must exceed).
 */
import type { Logger } from '../observability/logger.ts';

export type Closer = () => Promise<void>;

/** A role's listeners and what they hold, in the order a graceful shutdown takes them. */
export interface ShutdownTarget {
  /** Turns /readyz to 503 and asks keep-alive clients to reconnect; the listeners keep serving. */
  beginDrain(): void;
  /** Stops accepting; resolves once in-flight requests and streams have finished. */
  closeListeners: Closer;
  /** Closes the listeners (unless done) and then the stores, watchers and clients. */
  close: Closer;
}

export interface ShutdownTiming {
  /** How long the listeners keep serving after the signal (SHUTDOWN_DRAIN_DELAY_MS). */
  drainDelayMs: number;
  /** From the end of the drain: how long steps 2 and 3 may take (SHUTDOWN_GRACE_MS). */
  graceMs: number;
}

/** The one log line of each step (tests wait for them). */
export const SHUTDOWN_LOG = Object.freeze({
  draining: 'shutdown: draining (/readyz answers 503, still serving)',
  closingListeners: 'shutdown: drain over, closing the listeners, finishing in-flight requests',
  closingStores: 'shutdown: in-flight requests done, closing stores',
  stopped: 'stopped',
  graceOver: 'grace period over; exiting with requests still open',
});

/** `close` made idempotent: later calls share the first one's promise. */
export function closeOnce(close: Closer): Closer {
  let closed: Promise<void> | undefined;
  return () => {
    closed ??= close();
    return closed;
  };
}

/** Runs the three steps; resolves with the exit code (1 when the grace period ran out). */
export async function shutDown(
  log: Logger,
  timing: ShutdownTiming,
  target: ShutdownTarget,
  signal: string,
): Promise<number> {
  log.info({ signal, drainDelayMs: timing.drainDelayMs }, SHUTDOWN_LOG.draining);
  target.beginDrain();
  if (timing.drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, timing.drainDelayMs));

  log.info({ graceMs: timing.graceMs }, SHUTDOWN_LOG.closingListeners);
  let listenersClosed = false;
  const finished = (async () => {
    try {
      await target.closeListeners();
    } catch (error) {
      log.error({ err: error }, 'error while closing the listeners');
    }
    listenersClosed = true;
    log.info(SHUTDOWN_LOG.closingStores);
    try {
      await target.close();
    } catch (error) {
      log.error({ err: error }, 'error while shutting down');
    }
    return 0;
  })();
  let deadline: NodeJS.Timeout | undefined;
  const expired = new Promise<number>((resolve) => {
    deadline = setTimeout(() => {
      if (listenersClosed)
        log.warn({ graceMs: timing.graceMs }, 'grace period over while closing the stores');
      else log.warn({ graceMs: timing.graceMs }, SHUTDOWN_LOG.graceOver);
      resolve(1);
    }, timing.graceMs);
  });
  const code = await Promise.race([finished, expired]);
  clearTimeout(deadline);
  if (code === 0) log.info(SHUTDOWN_LOG.stopped);
  return code;
}

export function handleShutdownSignals(log: Logger, timing: ShutdownTiming, target: ShutdownTarget): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void shutDown(log, timing, target, signal).then((code) => process.exit(code));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
