/**
 * Preloaded into the gateway child (`node --import ./bench/child-guard.ts src/main/cli.ts ...`):
 * the bench holds the child's stdin open, so when the bench dies in any way (even SIGKILL) stdin
 * ends and the gateway shuts down instead of living on as an orphan. SIGTERM first, so a
 * `--cpu-prof` profile is still written by the gateway's own graceful exit; hard exit shortly after.
 */
import { isMainThread } from 'node:worker_threads';

// Worker threads (the embedding model's) inherit preloads; only the main thread watches stdin.
if (isMainThread) {
  const stop = () => {
    setTimeout(() => process.exit(1), 3000).unref();
    process.kill(process.pid, 'SIGTERM');
  };
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}
