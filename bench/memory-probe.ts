/**
 * Preloaded into the gateway of the cache bench's memory part (`node --expose-gc --import
 * ./bench/memory-probe.ts src/main/cli.ts standalone`, with BENCH_MEMORY_PROBE_FILE set): on SIGUSR2
 * it runs two full garbage collections and writes `process.memoryUsage()` with a sequence number
 * to that file (whole, by rename). The bench reads the heap after collection that way, without any
 * new endpoint or code in the gateway. Without the variable it does nothing.
 */
import { renameSync, writeFileSync } from 'node:fs';

const file = process.env.BENCH_MEMORY_PROBE_FILE;
let sequence = 0;

if (file !== undefined && file !== '') {
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    globalThis.gc?.();
    const usage = process.memoryUsage();
    sequence++;
    writeFileSync(`${file}.tmp`, JSON.stringify({ sequence, gc: globalThis.gc !== undefined, ...usage }));
    renameSync(`${file}.tmp`, file);
  });
}
