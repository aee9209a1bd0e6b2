/**
 * Summaries of V8 memory files, for `bench/memory-detail.ts` and by hand:
 *
 * - a heap snapshot (`.heapsnapshot`, from `v8.writeHeapSnapshot`): self size by node type, by
 *   constructor (objects, closures, arrays, native), and strings grouped by the shape of their first
 *   characters (digits as `#`, long hex runs as `<hex>`), which tells cache entries and cache keys
 *   from everything else. Read without `JSON.parse` of the whole file (a snapshot of a full cache is
 *   hundreds of MB): the nodes and strings arrays are scanned in place, and only strings' first
 *   characters are kept.
 * - a sampling heap profile (`.heapprofile`, from the inspector's `HeapProfiler.stopSampling`):
 *   bytes allocated by function and by area (project file, npm package, node internals), as in
 *   `profile-summary.ts` for CPU.
 *
 * `node bench/heap-summary.ts <file.heapsnapshot | file.heapprofile> [top=30] [requests]`: with
 * `requests`, allocation figures are also given per request.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { areaOf, shortUrl } from './profile-summary.ts';

// ---------------------------------------------------------------------------------------------
// Heap snapshots.

export interface SizeRow {
  name: string;
  count: number;
  bytes: number;
}

export interface SnapshotSummary {
  nodeCount: number;
  totalBytes: number;
  byType: SizeRow[];
  byConstructor: SizeRow[];
  stringGroups: SizeRow[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index of the first byte after `marker` in `buffer`, searching from `from` (or from the end). */
function after(buffer: Buffer, marker: string, fromEnd = false): number {
  const index = fromEnd ? buffer.lastIndexOf(marker) : buffer.indexOf(marker);
  if (index < 0) throw new Error(`not a heap snapshot: no ${marker}`);
  return index + Buffer.byteLength(marker);
}

/** Reads `count` non-negative integers of a JSON array starting at `start`. */
function readInts(buffer: Buffer, start: number, count: number): Float64Array {
  const out = new Float64Array(count);
  let index = 0;
  let value = 0;
  let inNumber = false;
  for (let at = start; at < buffer.length && index < count; at++) {
    const byte = buffer[at]!;
    if (byte >= 0x30 && byte <= 0x39) {
      value = value * 10 + (byte - 0x30);
      inNumber = true;
    } else if (inNumber) {
      out[index++] = value;
      value = 0;
      inNumber = false;
    }
  }
  if (index < count) throw new Error(`heap snapshot: ${index} of ${count} integers read`);
  return out;
}

/** The first `keep` raw (still escaped) characters of each string of the `strings` array. */
function readStringPrefixes(buffer: Buffer, start: number, keep: number): string[] {
  const prefixes: string[] = [];
  let at = start;
  for (;;) {
    while (at < buffer.length && buffer[at] !== QUOTE && buffer[at] !== 0x5d) at++;
    if (at >= buffer.length || buffer[at] === 0x5d) break;
    const from = at + 1;
    at = from;
    while (buffer[at] !== QUOTE) at += buffer[at] === BACKSLASH ? 2 : 1;
    prefixes.push(buffer.toString('utf8', from, Math.min(at, from + keep)));
    at++;
  }
  return prefixes;
}

/** Groups strings of the same make: digits and long hex runs masked, cut to 28 characters. */
function stringShape(prefix: string): string {
  return prefix
    .replace(/[0-9a-f]{16,}/g, '<hex>')
    .replace(/[A-Za-z0-9_-]{20,}/g, '<id>')
    .replace(/\d+/g, '#')
    .slice(0, 28);
}

function topRows(map: Map<string, { count: number; bytes: number }>, top: number): SizeRow[] {
  return [...map.entries()]
    .map(([name, value]) => ({ name, ...value }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
}

function add(map: Map<string, { count: number; bytes: number }>, key: string, bytes: number): void {
  const entry = map.get(key);
  if (entry === undefined) map.set(key, { count: 1, bytes });
  else {
    entry.count++;
    entry.bytes += bytes;
  }
}

export function summariseSnapshot(path: string, top = 30): SnapshotSummary {
  const buffer = readFileSync(path);
  const nodesStart = after(buffer, '"nodes":[');
  const header = buffer.toString('utf8', 0, buffer.indexOf('"nodes":[')).trim().replace(/,$/, '');
  const meta = (
    JSON.parse(`${header}}`) as {
      snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] }; node_count: number };
    }
  ).snapshot;
  const fields = meta.meta.node_fields;
  const width = fields.length;
  const typeField = fields.indexOf('type');
  const nameField = fields.indexOf('name');
  const sizeField = fields.indexOf('self_size');
  const types = meta.meta.node_types[0];
  const nodes = readInts(buffer, nodesStart, meta.node_count * width);
  const strings = readStringPrefixes(buffer, after(buffer, '"strings":[', true), 64);

  const byType = new Map<string, { count: number; bytes: number }>();
  const byConstructor = new Map<string, { count: number; bytes: number }>();
  const stringGroups = new Map<string, { count: number; bytes: number }>();
  let totalBytes = 0;
  for (let offset = 0; offset < nodes.length; offset += width) {
    const type = types[nodes[offset + typeField]!] ?? 'unknown';
    const name = strings[nodes[offset + nameField]!] ?? '';
    const bytes = nodes[offset + sizeField]!;
    totalBytes += bytes;
    add(byType, type, bytes);
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
      add(stringGroups, `${type === 'string' ? '' : `(${type}) `}${stringShape(name)}`, bytes);
    } else if (type !== 'hidden' && type !== 'synthetic') {
      add(byConstructor, `${type}: ${name.slice(0, 60)}`, bytes);
    } else {
      add(byConstructor, `${type}: ${stringShape(name)}`, bytes);
    }
  }
  return {
    nodeCount: meta.node_count,
    totalBytes,
    byType: topRows(byType, top),
    byConstructor: topRows(byConstructor, top),
    stringGroups: topRows(stringGroups, top),
  };
}

const MiB = 1024 * 1024;

export function renderSnapshotSummary(summary: SnapshotSummary): string {
  const rows = (list: SizeRow[]) =>
    list.map(
      (row) =>
        `  ${(row.bytes / MiB).toFixed(1).padStart(8)} MiB  ${String(row.count).padStart(9)}  ${JSON.stringify(row.name)}`,
    );
  return [
    `${summary.nodeCount} nodes, ${(summary.totalBytes / MiB).toFixed(1)} MiB of self size`,
    'by node type (MiB, count):',
    ...rows(summary.byType),
    'by constructor (objects, closures, arrays, code, native):',
    ...rows(summary.byConstructor),
    'strings by shape of their first characters (digits #, long hex <hex>):',
    ...rows(summary.stringGroups),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Sampling heap profiles.

interface HeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: HeapProfileNode[];
}

export interface AllocationRow {
  name: string;
  where: string;
  bytes: number;
  percent: number;
}

export interface AllocationSummary {
  totalBytes: number;
  functions: AllocationRow[];
  areas: AllocationRow[];
}

export function summariseHeapProfile(profile: { head: HeapProfileNode }, top = 30): AllocationSummary {
  const functions = new Map<string, { name: string; where: string; bytes: number }>();
  const areas = new Map<string, number>();
  let totalBytes = 0;
  const stack: HeapProfileNode[] = [profile.head];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const child of node.children ?? []) stack.push(child);
    if (node.selfSize === 0) continue;
    const frame = node.callFrame;
    const name = frame.functionName || '(anonymous)';
    const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
    const key = `${name}|${where}`;
    const entry = functions.get(key) ?? { name, where, bytes: 0 };
    entry.bytes += node.selfSize;
    functions.set(key, entry);
    const area = areaOf(name, frame.url);
    areas.set(area, (areas.get(area) ?? 0) + node.selfSize);
    totalBytes += node.selfSize;
  }
  const row = (name: string, where: string, bytes: number): AllocationRow => ({
    name,
    where,
    bytes,
    percent: totalBytes > 0 ? (100 * bytes) / totalBytes : 0,
  });
  return {
    totalBytes,
    functions: [...functions.values()]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, top)
      .map((entry) => row(entry.name, entry.where, entry.bytes)),
    areas: [...areas.entries()].sort((a, b) => b[1] - a[1]).map(([area, bytes]) => row(area, '', bytes)),
  };
}

export function renderAllocationSummary(summary: AllocationSummary, requests?: number): string {
  const per = (bytes: number) =>
    requests === undefined || requests === 0 ? '' : `  ${(bytes / requests).toFixed(0).padStart(7)} B/req`;
  return [
    `allocated (sampled estimate, collected objects included) ${(summary.totalBytes / MiB).toFixed(1)} MiB` +
      `${requests !== undefined && requests > 0 ? ` over ${requests} requests, ${(summary.totalBytes / requests).toFixed(0)} B per request` : ''}`,
    'by area:',
    ...summary.areas.map(
      (area) =>
        `  ${area.percent.toFixed(1).padStart(5)}%  ${(area.bytes / MiB).toFixed(1).padStart(8)} MiB${per(area.bytes)}  ${area.name}`,
    ),
    'top functions by bytes allocated:',
    ...summary.functions.map(
      (fn) =>
        `  ${fn.percent.toFixed(1).padStart(5)}%  ${(fn.bytes / MiB).toFixed(1).padStart(8)} MiB${per(fn.bytes)}  ${fn.name}  ${fn.where}`,
    ),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (file === undefined) {
    process.stderr.write(
      'usage: node bench/heap-summary.ts <file.heapsnapshot | file.heapprofile> [top=30] [requests]\n',
    );
    process.exit(2);
  }
  const top = Number(process.argv[3] ?? 30);
  if (file.endsWith('.heapprofile')) {
    const requests = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
    const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapProfileNode };
    process.stdout.write(`${renderAllocationSummary(summariseHeapProfile(profile, top), requests)}\n`);
  } else {
    process.stdout.write(`${renderSnapshotSummary(summariseSnapshot(file, top))}\n`);
  }
}
