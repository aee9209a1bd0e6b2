/**
 * Graceful shutdown: on SIGTERM or SIGINT stop accepting, let in-flight requests and streams
 * finish (up to the grace period), then close stores and exit.
 */
import type { Logger } from '../observability/logger.ts';

export type Closer = () => Promise<void>;

export function handleShutdownSignals(log: Logger, graceMs: number, closers: Closer[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      log.warn({ graceMs }, 'grace period over; exiting with requests still open');
      process.exit(1);
    }, graceMs);
    deadline.unref();
    for (const close of closers) {
      try {
        await close();
      } catch (error) {
        log.error({ err: error }, 'error while shutting down');
      }
    }
    log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
