/**
 * The Redis runtime store's mirror of semantic buckets (redis-runtime/semantic-mirror.ts) against a
 * real server and a real three-master cluster: several stores on one Redis are several pods, each
 * with its own copy, kept in sync by the records appended since it last read.
 */
import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedisKeyLayout } from '../../../src/stores/redis-keys.ts';
import { RedisRuntimeStore, type RedisRuntimeStoreOptions } from '../../../src/stores/redis-runtime-store.ts';
import { semanticRecordBytes } from '../../../src/stores/semantic-records.ts';
import { startRedisCluster } from '../../helpers/redis-cluster.ts';
import { startRedisServer } from '../../helpers/redis-server.ts';

const [server, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
afterAll(async () => {
  await Promise.all([server?.stop(), cluster?.stop()]);
});

const DIMENSIONS = 8;
const RECORD = semanticRecordBytes(DIMENSIONS);
const id = (n: number) => n.toString(16).padStart(64, '0');
const candidate = (n: number, lifeMs = 60_000) => ({
  id: id(n),
  expiresAtMs: Date.now() + lifeMs,
  vector: Int8Array.from({ length: DIMENSIONS }, (_, k) => ((n + k) % 255) - 127),
});
/** The ids from `to` down to `from`: what a scan of everything should find, newest first. */
const newest = (to: number, from = 1) => Array.from({ length: to - from + 1 }, (_, k) => id(to - k));

interface Backend {
  name: string;
  connection: Pick<RedisRuntimeStoreOptions, 'url' | 'clusterNodes'>;
  raw: () => Redis | Cluster;
  /** FLUSHALL: on the server, or on every master of the cluster. */
  flush: (raw: Redis | Cluster) => Promise<unknown>;
}

const backends: Backend[] = [];
if (server !== undefined)
  backends.push({
    name: 'one server',
    connection: { url: server.url },
    raw: () => new Redis(server.url),
    flush: (raw) => raw.flushall(),
  });
if (cluster !== undefined)
  backends.push({
    name: 'cluster',
    connection: { clusterNodes: cluster.nodes },
    raw: () =>
      new Cluster(cluster.nodes.map((node) => ({ host: '127.0.0.1', port: Number(node.split(':')[1]) }))),
    flush: (raw) => Promise.all((raw as Cluster).nodes('master').map((node) => node.flushall())),
  });

describe.runIf(backends.length > 0).each(backends)('Redis semantic mirror ($name)', (backend) => {
  let keyPrefix: string;
  let raw: Redis | Cluster;
  let opened: RedisRuntimeStore[];
  const open = (options: Partial<RedisRuntimeStoreOptions> = {}) => {
    const store = new RedisRuntimeStore({ ...backend.connection, keyPrefix, ...options });
    opened.push(store);
    return store;
  };
  const keyOf = (bucket: string) => createRedisKeyLayout(keyPrefix).semanticBucket(bucket);
  const ids = async (store: RedisRuntimeStore, bucket: string, depth = 1000) =>
    (await store.scanSemanticCandidates(bucket, DIMENSIONS, depth)).map((found) => found.id);

  beforeEach(() => {
    keyPrefix = `gw:test:${randomUUID()}:`;
    raw = backend.raw();
    opened = [];
  });

  afterEach(async () => {
    await Promise.all(opened.map((store) => store.close()));
    raw.disconnect();
  });

  it('lets two pods appending in turn each see every candidate, reading only what is new', async () => {
    const [a, b] = [open(), open()];
    for (let n = 1; n <= 40; n += 1) {
      await (n % 2 === 0 ? a : b).addSemanticCandidate('turns', candidate(n), 100, 60_000);
      expect(await ids(a, 'turns')).toEqual(newest(n));
      expect(await ids(b, 'turns')).toEqual(newest(n));
    }
    // After the first read, each scan moved the one record written since.
    for (const store of [a, b]) {
      expect(store.semanticMirrorStats.fullReads).toBe(1);
      expect(store.semanticMirrorStats.deltaReads).toBe(39);
      expect(store.semanticMirrorStats.bytesRead).toBe(40 * RECORD);
    }
    // Nothing new: nothing read.
    await ids(a, 'turns');
    expect(a.semanticMirrorStats.bytesRead).toBe(40 * RECORD);
  });

  it('rereads the tail when the bucket was trimmed past the copy, then goes on with deltas', async () => {
    const [reader, writer] = [open(), open()];
    for (let n = 1; n <= 5; n += 1) await writer.addSemanticCandidate('trim', candidate(n), 10, 60_000);
    expect(await ids(reader, 'trim')).toEqual(newest(5));
    for (let n = 6; n <= 40; n += 1) await writer.addSemanticCandidate('trim', candidate(n), 10, 60_000);
    const afterTrim = await ids(reader, 'trim');
    expect(afterTrim).toEqual(await ids(open(), 'trim'));
    expect(afterTrim.length).toBeGreaterThanOrEqual(10);
    expect(afterTrim.length).toBeLessThanOrEqual(13);
    expect(afterTrim[0]).toBe(id(40));
    expect(afterTrim).toEqual(newest(40, 41 - afterTrim.length));
    expect(reader.semanticMirrorStats.fullReads).toBe(2);
    await writer.addSemanticCandidate('trim', candidate(41), 10, 60_000);
    const next = await ids(reader, 'trim');
    expect(next).toEqual(await ids(open(), 'trim'));
    expect(reader.semanticMirrorStats.fullReads).toBe(2);
  });

  it('rereads the tail when a scan asks deeper than the copy holds', async () => {
    const [reader, writer] = [open(), open()];
    for (let n = 1; n <= 20; n += 1) await writer.addSemanticCandidate('deep', candidate(n), 100, 60_000);
    expect(await ids(reader, 'deep', 3)).toEqual(newest(20, 18));
    await writer.addSemanticCandidate('deep', candidate(21), 100, 60_000);
    expect(await ids(reader, 'deep', 2)).toEqual(newest(21, 20));
    expect(await ids(reader, 'deep', 15)).toEqual(newest(21, 7));
    expect(await ids(reader, 'deep', 3)).toEqual(newest(21, 19));
    expect(reader.semanticMirrorStats.fullReads).toBe(2);
  });

  it('never scores the candidates of a deleted key, even once another key of that name has more', async () => {
    const [reader, writer] = [open(), open()];
    for (let n = 1; n <= 3; n += 1) await writer.addSemanticCandidate('del', candidate(n), 100, 60_000);
    expect(await ids(reader, 'del')).toEqual(newest(3));
    await raw.del(keyOf('del'));
    expect(await ids(reader, 'del')).toEqual([]);
    expect(reader.semanticMirrorStats.missingReads).toBe(1);
    // Deleted and written again behind the reader's back: more records than it knew of.
    expect(await ids(reader, 'del')).toEqual([]);
    for (let n = 1; n <= 3; n += 1) await writer.addSemanticCandidate('del', candidate(n), 100, 60_000);
    expect(await ids(reader, 'del')).toEqual(newest(3));
    await raw.del(keyOf('del'));
    for (let n = 11; n <= 15; n += 1) await writer.addSemanticCandidate('del', candidate(n), 100, 60_000);
    expect(await ids(reader, 'del')).toEqual(newest(15, 11));
  });

  it('forgets a bucket whose key expired, though its candidates would still be live', async () => {
    const [reader, writer] = [open(), open()];
    for (let n = 1; n <= 3; n += 1) await writer.addSemanticCandidate('ttl', candidate(n), 100, 60_000);
    expect(await ids(reader, 'ttl')).toEqual(newest(3));
    await raw.pexpire(keyOf('ttl'), 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await ids(reader, 'ttl')).toEqual([]);
    expect(reader.semanticMirrorStats.buckets).toBe(0);
    expect(reader.semanticMirrorStats.bytes).toBe(0);
  });

  it('finds nothing after FLUSHALL', async () => {
    const [reader, writer] = [open(), open()];
    for (let n = 1; n <= 3; n += 1) await writer.addSemanticCandidate('flush', candidate(n), 100, 60_000);
    expect(await ids(reader, 'flush')).toEqual(newest(3));
    await backend.flush(raw);
    expect(await ids(reader, 'flush')).toEqual([]);
    for (let n = 7; n <= 9; n += 1) await writer.addSemanticCandidate('flush', candidate(n), 100, 60_000);
    expect(await ids(reader, 'flush')).toEqual(newest(9, 7));
  });

  it('starts a new key (a purge moves the bucket to another generation) empty', async () => {
    const store = open();
    for (let n = 1; n <= 3; n += 1)
      await store.addSemanticCandidate('scope:1.0:ctx', candidate(n), 100, 60_000);
    expect(await ids(store, 'scope:1.0:ctx')).toEqual(newest(3));
    expect(await ids(store, 'scope:2.0:ctx')).toEqual([]);
    await store.addSemanticCandidate('scope:2.0:ctx', candidate(9), 100, 60_000);
    expect(await ids(store, 'scope:2.0:ctx')).toEqual([id(9)]);
    expect(await ids(store, 'scope:1.0:ctx')).toEqual(newest(3));
  });

  it('keeps its copies within the byte bound, the buckets read least recently going first', async () => {
    const writer = open();
    // Room for two buckets of 20 records, not three.
    const reader = open({ semanticMirrorBytes: 50 * RECORD });
    for (const bucket of ['m1', 'm2', 'm3', 'm4'])
      for (let n = 1; n <= 20; n += 1) await writer.addSemanticCandidate(bucket, candidate(n), 100, 60_000);
    for (const bucket of ['m1', 'm2', 'm3', 'm4']) expect(await ids(reader, bucket)).toEqual(newest(20));
    const stats = reader.semanticMirrorStats;
    expect(stats.bytes).toBeLessThanOrEqual(50 * RECORD);
    expect(stats.buckets).toBe(2);
    // m4 is held (a delta), m1 was let go (the tail again).
    await writer.addSemanticCandidate('m4', candidate(21), 100, 60_000);
    await writer.addSemanticCandidate('m1', candidate(21), 100, 60_000);
    const fullBefore = reader.semanticMirrorStats.fullReads;
    expect(await ids(reader, 'm4')).toEqual(newest(21));
    expect(reader.semanticMirrorStats.fullReads).toBe(fullBefore);
    expect(await ids(reader, 'm1')).toEqual(newest(21));
    expect(reader.semanticMirrorStats.fullReads).toBe(fullBefore + 1);
    // Without a mirror, every scan reads the tail, and finds the same.
    const bare = open({ semanticMirrorBytes: 0 });
    expect(await ids(bare, 'm1')).toEqual(newest(21));
    expect(await ids(bare, 'm1')).toEqual(newest(21));
    expect(bare.semanticMirrorStats).toMatchObject({ fullReads: 2, buckets: 0, bytes: 0 });
  });

  it('answers concurrent scans of one bucket, while another pod writes, with whole newest-first runs', async () => {
    const [reader, writer] = [open(), open()];
    await writer.addSemanticCandidate('busy', candidate(1), 1000, 60_000);
    const scans: Promise<string[]>[] = [];
    const writes: Promise<void>[] = [];
    for (let n = 2; n <= 60; n += 1) {
      writes.push(writer.addSemanticCandidate('busy', candidate(n), 1000, 60_000));
      scans.push(ids(reader, 'busy'), ids(reader, 'busy', 5));
      if (n % 3 === 0) await writes.at(-1);
    }
    await Promise.all(writes);
    for (const found of await Promise.all(scans)) {
      const top = Number.parseInt(found[0] ?? '0', 16);
      expect(found).toEqual(newest(top, Math.max(1, top - found.length + 1)));
      expect(found.length === 5 || found.length === top).toBe(true);
    }
    expect(await ids(reader, 'busy')).toEqual(newest(60));
  });
});
