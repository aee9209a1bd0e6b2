/**
 * Preloaded into a gateway by `bench/memory-detail.ts` (`node --expose-gc --import
 * ./bench/heap-probe.ts src/main/cli.ts ...`, with BENCH_HEAP_PROBE_DIR set). Without the variable it
 * does nothing. It lets the bench look inside the gateway's memory without any endpoint or code in
 * the gateway:
 *
 * - Every 100 ms it samples `process.memoryUsage()` and keeps the sample with the highest RSS (the
 *   peak record: RSS, heap total and used, external, array buffers, and V8's heap spaces, all at that
 *   moment).
 * - On SIGUSR2 it reads one command from `<dir>/command.json` and writes its answer to
 *   `<dir>/answer-<seq>.json` (by rename, so the bench never reads half a file):
 *   - `{"op":"peak"}`: the peak record since the last `reset`, and a sample now;
 *   - `{"op":"reset"}`: starts a new peak record;
 *   - `{"op":"gc"}`: two full garbage collections, then a sample (the live heap);
 *   - `{"op":"snapshot","path":...}`: `v8.writeHeapSnapshot(path)` (after the GC it implies);
 *   - `{"op":"sample-start","intervalBytes":N}`: the inspector's sampling heap profiler, keeping the
 *     samples of objects that the GC has collected too (so the profile is of what was allocated,
 *     not only of what survived);
 *   - `{"op":"sample-stop","path":...}`: stops it and writes the `.heapprofile` JSON.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

const dir = process.env.BENCH_HEAP_PROBE_DIR;

interface Sample {
  at: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Per V8 space: size (committed) and used, bytes. */
  spaces: Record<string, { size: number; used: number }>;
  /** `v8.getHeapStatistics()`: malloced memory, peak malloced, number of native contexts... */
  heap: Record<string, number>;
}

function sample(): Sample {
  const usage = process.memoryUsage();
  const spaces: Sample['spaces'] = {};
  for (const space of v8.getHeapSpaceStatistics()) {
    spaces[space.space_name] = { size: space.space_size, used: space.space_used_size };
  }
  return {
    at: Date.now(),
    rss: usage.rss,
    heapTotal: usage.heapTotal,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    spaces,
    heap: { ...v8.getHeapStatistics() } as unknown as Record<string, number>,
  };
}

if (isMainThread && dir !== undefined && dir !== '') {
  let peak = sample();
  let sequence = 0;
  const timer = setInterval(() => {
    // process.memoryUsage.rss() is cheap; the full sample only when it is a new peak.
    if (process.memoryUsage.rss() > peak.rss) peak = sample();
  }, 100);
  timer.unref();

  let session: Session | undefined;
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((done, fail) =>
      session!.post(method, params ?? {}, (error, result) => (error ? fail(error) : done(result as T))),
    );

  const answer = (body: unknown) => {
    sequence++;
    const file = join(dir, `answer-${sequence}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify({ sequence, ...(body as object) }));
    renameSync(`${file}.tmp`, file);
  };

  const run = async (command: { op: string; path?: string; intervalBytes?: number }) => {
    switch (command.op) {
      case 'peak':
        return { peak, now: sample() };
      case 'reset':
        peak = sample();
        return { now: peak };
      case 'gc': {
        const gc = globalThis.gc;
        if (gc === undefined) throw new Error('no gc(): start the gateway with --expose-gc');
        gc();
        gc();
        return { now: sample() };
      }
      case 'snapshot': {
        const path = v8.writeHeapSnapshot(command.path);
        return { path, now: sample() };
      }
      case 'sample-start': {
        session = new Session();
        session.connect();
        await post('HeapProfiler.enable');
        await post('HeapProfiler.startSampling', {
          samplingInterval: command.intervalBytes ?? 16_384,
          includeObjectsCollectedByMajorGC: true,
          // BENCH_SAMPLE_PROMOTED=1: only what outlived the young generation (what fills old space).
          includeObjectsCollectedByMinorGC: process.env.BENCH_SAMPLE_PROMOTED !== '1',
        });
        return { now: sample() };
      }
      case 'sample-stop': {
        if (session === undefined) throw new Error('sample-stop without sample-start');
        const { profile } = await post<{ profile: unknown }>('HeapProfiler.stopSampling');
        writeFileSync(command.path!, JSON.stringify(profile));
        session.disconnect();
        session = undefined;
        return { path: command.path, now: sample() };
      }
      default:
        throw new Error(`unknown op ${command.op}`);
    }
  };

  process.on('SIGUSR2', () => {
    let command: { op: string };
    try {
      command = JSON.parse(readFileSync(join(dir, 'command.json'), 'utf8')) as { op: string };
    } catch (error) {
      answer({ error: String(error) });
      return;
    }
    run(command).then(
      (result) => answer({ op: command.op, ...result }),
      (error: unknown) => answer({ op: command.op, error: String(error) }),
    );
  });
}
