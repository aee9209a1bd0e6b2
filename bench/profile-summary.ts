/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`) by self time: the top functions, and the
 * totals per area (project file, npm package, node internals, GC, idle).
 *
 * `node bench/profile-summary.ts <file.cpuprofile> [top=30]`
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTimeRow {
  name: string;
  where: string;
  selfMs: number;
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Sampled time excluding (idle). */
  busyMs: number;
  functions: SelfTimeRow[];
  areas: SelfTimeRow[];
}

export function shortUrl(url: string): string {
  if (url === '') return '';
  const nodeModules = url.lastIndexOf('/node_modules/');
  if (nodeModules >= 0) return url.slice(nodeModules + '/node_modules/'.length);
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  return url.replace(/^file:\/\//, '');
}

export function areaOf(name: string, url: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const nodeModules = url.lastIndexOf('/node_modules/');
  if (nodeModules >= 0) {
    const rest = url.slice(nodeModules + '/node_modules/'.length).split('/');
    return `npm ${rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const src = url.indexOf('/src/');
  if (src >= 0)
    return url
      .slice(src + 1)
      .split('/')
      .slice(0, 2)
      .join('/');
  return shortUrl(url);
}

/**
 * The part of a profile sampled between `fromUs` and `toUs`, in the profile's clock: microseconds
 * of the monotonic clock, as `process.hrtime.bigint() / 1000n` in any process on the same machine.
 */
export function sliceProfile(profile: CpuProfile, fromUs: number, toUs: number): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length; index++) {
    at += profile.timeDeltas[index] ?? 0;
    if (at < fromUs || at > toUs) continue;
    samples.push(profile.samples[index]!);
    timeDeltas.push(profile.timeDeltas[index] ?? 0);
  }
  return { ...profile, startTime: fromUs, endTime: toUs, samples, timeDeltas };
}

export function summariseProfile(profile: CpuProfile, top = 30): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const functions = new Map<string, { name: string; where: string; us: number }>();
  const areas = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const name = frame.functionName || '(anonymous)';
    totalUs += us;
    if (name === '(idle)') idleUs += us;
    const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
    const key = `${name}|${where}`;
    const entry = functions.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    functions.set(key, entry);
    const area = areaOf(name, frame.url);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const busyUs = totalUs - idleUs;
  const row = (name: string, where: string, us: number): SelfTimeRow => ({
    name,
    where,
    selfMs: us / 1000,
    percent: busyUs > 0 ? (100 * us) / busyUs : 0,
  });
  return {
    totalMs: totalUs / 1000,
    busyMs: busyUs / 1000,
    functions: [...functions.values()]
      .filter((entry) => entry.name !== '(idle)')
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((entry) => row(entry.name, entry.where, entry.us)),
    areas: [...areas.entries()]
      .filter(([area]) => area !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .map(([area, us]) => row(area, '', us)),
  };
}

export function renderProfileSummary(summary: ProfileSummary): string {
  const lines = [
    `sampled ${summary.totalMs.toFixed(0)} ms, busy (not idle) ${summary.busyMs.toFixed(0)} ms; % of busy time`,
    '',
    'self time by area:',
    ...summary.areas.map((area) => `  ${area.percent.toFixed(1).padStart(5)}%  ${area.name}`),
    '',
    'top functions by self time:',
    ...summary.functions.map(
      (fn) =>
        `  ${fn.percent.toFixed(1).padStart(5)}%  ${fn.selfMs.toFixed(0).padStart(6)} ms  ${fn.name}  ${fn.where}`,
    ),
  ];
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (file === undefined) {
    process.stderr.write('usage: node bench/profile-summary.ts <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${renderProfileSummary(summariseProfile(profile, Number(process.argv[3] ?? 30)))}\n`);
}
