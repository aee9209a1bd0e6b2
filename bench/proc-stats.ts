/**
 * CPU time and resident memory of other processes (the bench's children) from /proc, for
 * `bench/throughput.ts` and `bench/memory-detail.ts`. Linux only.
 *
 * - CPU: user + system time of all the process's threads (`/proc/<pid>/stat` fields 14 and 15, in
 *   clock ticks, usually 10 ms each), so GC helper threads and libuv's pool count too.
 * - Memory: VmRSS (now) and VmHWM (the peak since start, or since the last reset) from
 *   `/proc/<pid>/status`. Writing `5` to `/proc/<pid>/clear_refs` resets VmHWM to the current RSS
 *   (allowed for our own children); a `SegmentWatch` does that at its start so that VmHWM at its
 *   end is the segment's own peak, and also samples VmRSS every `sampleMs` in case the reset is
 *   refused. The peak before each reset is kept as the process's lifetime peak.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

function clockTicksPerSecond(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

const TICKS_PER_SECOND = clockTicksPerSecond();

/** User + system CPU seconds of `pid` so far (all threads). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: split after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU seconds the whole host has been busy (all CPUs: everything but idle and iowait), from the
 * first line of /proc/stat. Minus the bench's own processes' CPU over a segment, it is what other
 * work on the machine (neighbours) took meanwhile.
 */
export function hostBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return (total - ticks[3]! - ticks[4]!) / TICKS_PER_SECOND;
}

export interface MemoryStatus {
  /** Bytes resident now. */
  rss: number;
  /** Peak resident bytes since start or the last reset. */
  hwm: number;
}

export function memoryStatus(pid: number): MemoryStatus {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    if (match === null) throw new Error(`no ${name} in /proc/${pid}/status`);
    return Number(match[1]) * 1024;
  };
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** Lifetime peak RSS per pid, across resets. */
const lifetimePeaks = new Map<number, number>();

/** The highest RSS seen for `pid` since it started (folds in the current VmHWM). */
export function lifetimePeak(pid: number): number {
  let peak = lifetimePeaks.get(pid) ?? 0;
  try {
    peak = Math.max(peak, memoryStatus(pid).hwm);
  } catch {
    // Gone: keep what was seen.
  }
  lifetimePeaks.set(pid, peak);
  return peak;
}

/** Resets VmHWM to the current RSS; false if the kernel refused. */
export function resetPeak(pid: number): boolean {
  lifetimePeak(pid);
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface ProcessUsage {
  /** CPU seconds (user + system) over the segment. */
  cpuSeconds: number;
  /** Peak RSS over the segment, bytes: VmHWM after a reset at the start, or the sampled maximum. */
  peakRss: number;
  /** RSS at the end of the segment, bytes. */
  endRss: number;
  /** Whether VmHWM was reset at the start (else the peak is the sampled maximum of VmRSS only). */
  hwmReset: boolean;
}

/** Watches some processes over a segment: CPU time used and peak RSS. */
export class SegmentWatch {
  readonly #pids: number[];
  readonly #startCpu: number[];
  readonly #reset: boolean[];
  readonly #sampledMax: number[];
  readonly #timer: NodeJS.Timeout;

  constructor(pids: number[], sampleMs = 100) {
    this.#pids = pids;
    this.#reset = pids.map(resetPeak);
    this.#startCpu = pids.map(cpuSeconds);
    this.#sampledMax = pids.map((pid) => memoryStatus(pid).rss);
    this.#timer = setInterval(() => this.#sample(), sampleMs);
  }

  #sample(): void {
    this.#pids.forEach((pid, index) => {
      try {
        this.#sampledMax[index] = Math.max(this.#sampledMax[index]!, memoryStatus(pid).rss);
      } catch {
        // The process is gone; the bench notices on its own.
      }
    });
  }

  stop(): ProcessUsage[] {
    clearInterval(this.#timer);
    return this.#pids.map((pid, index) => {
      const status = memoryStatus(pid);
      const peak = Math.max(this.#sampledMax[index]!, status.rss, this.#reset[index] ? status.hwm : 0);
      lifetimePeak(pid);
      return {
        cpuSeconds: cpuSeconds(pid) - this.#startCpu[index]!,
        peakRss: peak,
        endRss: status.rss,
        hwmReset: this.#reset[index]!,
      };
    });
  }
}
