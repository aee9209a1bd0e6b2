/**
 * Preloaded into server children that tests start (`node --import ./test/helpers/child-guard.ts
 * src/main/cli.ts ...`), after bench/child-guard.ts: the test holds the child's stdin open, so
 * when the test process dies in any way (even SIGKILL, a crashed worker) stdin ends and the child
 * goes too instead of living on as an orphan. At once and without a graceful shutdown: the test
 * that would wait for one is gone, and its end of the child's stdout is closed, where the logger's
 * synchronous writes retry a broken pipe forever and would hang the shutdown.
 */
import { isMainThread } from 'node:worker_threads';

// Worker threads (the embedding model's) inherit preloads; only the main thread watches stdin.
if (isMainThread) {
  const die = () => process.kill(process.pid, 'SIGKILL');
  process.stdin.on('end', die);
  process.stdin.on('error', die);
  process.stdin.resume();
}
