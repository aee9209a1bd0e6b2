/**
 * Where the Redis stores connect beyond REDIS_URL: a Redis Cluster's seed nodes, a Sentinel-managed
 * master, and the credentials and TLS of the data nodes. Part of Settings (settings.ts).
 *
 * One server: REDIS_URL. A Redis Cluster: REDIS_CLUSTER_NODES. Sentinel: REDIS_SENTINELS and
 * REDIS_SENTINEL_MASTER. With either of the last two, REDIS_URL (when set) gives only credentials,
 * TLS (`rediss://`) and, for Sentinel, the database; REDIS_PASSWORD and REDIS_TLS override it, so
 * that a password can come from its own Secret.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface RedisSentinelSettings {
  /** REDIS_SENTINELS: the sentinels, `host:port` (comma-separated); any one that answers will do. */
  nodes: readonly string[];
  /** REDIS_SENTINEL_MASTER: the name the sentinels monitor the master under (default `mymaster`). */
  masterName: string;
  /** REDIS_SENTINEL_PASSWORD: the sentinels' own password (`requirepass` of sentinel.conf), if any. */
  password: string | undefined;
}

export interface RedisTlsSettings {
  /** REDIS_TLS_CA_FILE: PEM bundle of the CA that signed the servers' certificates (a private CA). */
  ca: string | undefined;
}

export interface RedisSettings {
  /**
   * REDIS_CLUSTER_NODES: a Redis Cluster's seed nodes (`host:port`, comma-separated); the stores
   * then use the Cluster client (credentials and TLS from REDIS_URL when it is set too).
   */
  redisClusterNodes: readonly string[] | undefined;
  /** REDIS_SENTINELS: the master the sentinels name, followed through failovers (ioredis's Sentinel support). */
  redisSentinel: RedisSentinelSettings | undefined;
  /** REDIS_PASSWORD: the data nodes' password (REDIS_USERNAME for an ACL user); wins over REDIS_URL's. */
  redisPassword: string | undefined;
  redisUsername: string | undefined;
  /** TLS to the data nodes and sentinels: REDIS_TLS=on, or implied by REDIS_TLS_CA_FILE or a `rediss://` REDIS_URL. */
  redisTls: RedisTlsSettings | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;
type Fail = (message: string) => never;

/** `host:port` or `redis://host:port` entries, comma-separated. */
function readNodes(env: Env, name: string, fail: Fail): readonly string[] | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const nodes = raw.split(',').map((node) => node.trim());
  for (const node of nodes) {
    let url: URL | undefined;
    try {
      url = new URL(node.includes('://') ? node : `redis://${node}`);
    } catch {
      url = undefined;
    }
    if (url === undefined || url.hostname === '' || !/^redis?s?:$/.test(url.protocol) || url.port === '')
      fail(`${name} must be host:port entries, comma-separated; got '${node}'`);
  }
  return nodes;
}

function readTls(env: Env, cwd: string, fail: Fail): RedisTlsSettings | undefined {
  const raw = env.REDIS_TLS?.trim().toLowerCase();
  const caFile = env.REDIS_TLS_CA_FILE?.trim() || undefined;
  let ca: string | undefined;
  if (caFile !== undefined) {
    try {
      ca = readFileSync(resolve(cwd, caFile), 'utf8');
    } catch (error) {
      fail(`REDIS_TLS_CA_FILE cannot be read: ${(error as Error).message}`);
    }
  }
  if (raw === undefined || raw === '')
    return ca !== undefined || env.REDIS_URL?.trim().startsWith('rediss://') ? { ca } : undefined;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return { ca };
  if (['0', 'false', 'off', 'no'].includes(raw)) {
    if (ca !== undefined) fail('REDIS_TLS_CA_FILE needs REDIS_TLS on');
    return undefined;
  }
  return fail(`REDIS_TLS must be on or off, got '${env.REDIS_TLS}'`);
}

export function readRedisSettings(env: Env, cwd: string, fail: Fail): RedisSettings {
  const redisClusterNodes = readNodes(env, 'REDIS_CLUSTER_NODES', fail);
  const sentinels = readNodes(env, 'REDIS_SENTINELS', fail);
  if (redisClusterNodes !== undefined && sentinels !== undefined)
    fail('set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both');
  const masterName = env.REDIS_SENTINEL_MASTER?.trim() || 'mymaster';
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(masterName))
    fail(`REDIS_SENTINEL_MASTER must be a master name like mymaster, got '${masterName}'`);
  const sentinelPassword = env.REDIS_SENTINEL_PASSWORD || undefined;
  if (sentinels === undefined && (env.REDIS_SENTINEL_MASTER?.trim() || sentinelPassword !== undefined))
    fail('REDIS_SENTINEL_MASTER and REDIS_SENTINEL_PASSWORD need REDIS_SENTINELS');
  return Object.freeze({
    redisClusterNodes,
    redisSentinel:
      sentinels === undefined
        ? undefined
        : Object.freeze({ nodes: sentinels, masterName, password: sentinelPassword }),
    // Passwords are taken as they are: spaces may be part of one.
    redisPassword: env.REDIS_PASSWORD || undefined,
    redisUsername: env.REDIS_USERNAME?.trim() || undefined,
    redisTls: readTls(env, cwd, fail),
  });
}
