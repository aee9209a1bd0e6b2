/**
 * What the operator suites share: a real kube-apiserver (CRDs applied) and a real redis-server,
 * in-process operators with captured logs, admin helpers to apply and read objects, and a scan of
 * everything the operator could have leaked a secret into.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { type ClusterOperatorOptions, startClusterOperator } from '../../../src/main/operator-io.ts';
import type { OperatorHandle } from '../../../src/operator/operator.ts';
import { PROVIDERS } from '../../../src/providers/registry.ts';
import { RedisConfigStore } from '../../../src/stores/redis-config-store.ts';
import {
  type KubeControlPlane,
  kubeAvailable,
  startKubeControlPlane,
} from '../../helpers/kube-control-plane.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';

function redisServerOnPath(): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((directory) => {
    try {
      accessSync(join(directory, 'redis-server'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Whether the suites can run: kube binaries and redis-server (REQUIRE_KUBE / REQUIRE_REDIS make a lack fatal). */
export function operatorSuitesAvailable(): boolean {
  if (!kubeAvailable()) return false;
  if (redisServerOnPath()) return true;
  if (process.env.REQUIRE_REDIS === '1') throw new Error('REQUIRE_REDIS=1 but redis-server is not on PATH');
  process.stderr.write('skipping the operator suites: redis-server is not on PATH\n');
  return false;
}

/** The platform tenant the suites' operators honour admin PATs for (the chart's default). */
export const PLATFORM_TENANT = 'platform';

export const GROUP_PATH = '/apis/gateway.service.io/v1alpha1';

/** Fast lease timings for tests (production: 15 s / 10 s / 2 s). */
export const TEST_LEASE = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 300 };

type Kind = 'Tenant' | 'CachePolicy' | 'Connection' | 'ModelRoute' | 'Secret' | 'Namespace';
const PLURALS: Record<Kind, { base: string; plural: string; namespaced: boolean }> = {
  Tenant: { base: GROUP_PATH, plural: 'tenants', namespaced: false },
  CachePolicy: { base: GROUP_PATH, plural: 'cachepolicies', namespaced: true },
  Connection: { base: GROUP_PATH, plural: 'connections', namespaced: true },
  ModelRoute: { base: GROUP_PATH, plural: 'modelroutes', namespaced: true },
  Secret: { base: '/api/v1', plural: 'secrets', namespaced: true },
  Namespace: { base: '/api/v1', plural: 'namespaces', namespaced: false },
};

export function objectPath(kind: Kind, name: string, namespace?: string): string {
  const { base, plural, namespaced } = PLURALS[kind];
  return namespaced ? `${base}/namespaces/${namespace}/${plural}/${name}` : `${base}/${plural}/${name}`;
}

export interface KubeObject {
  apiVersion?: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    generation?: number;
    finalizers?: string[];
    deletionTimestamp?: string;
    labels?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    keyHint?: string;
    conditions?: {
      type: string;
      status: string;
      reason: string;
      message: string;
      observedGeneration?: number;
    }[];
  };
  [field: string]: unknown;
}

export interface OperatorTestBed {
  plane: KubeControlPlane;
  redis: RedisServer;
  /** Reads the config store the operators write. */
  store: RedisConfigStore;
  encryptionKey: Buffer;
  /** Every log line of every operator started here (JSON). */
  logs: string[];
  startOperator(options?: Partial<ClusterOperatorOptions>): Promise<OperatorHandle>;
  /** Server-side apply as admin (field manager `test`); throws on a refusal. */
  apply(object: KubeObject): Promise<KubeObject>;
  /** Applies a Tenant and waits until the operator has created its namespace. */
  applyTenant(object: KubeObject): Promise<void>;
  /** The object, or undefined when it does not exist. */
  read(kind: Kind, name: string, namespace?: string): Promise<KubeObject | undefined>;
  remove(kind: Kind, name: string, namespace?: string): Promise<void>;
  /** Every value in Redis (strings and hash fields), for a plaintext scan. */
  redisDump(): Promise<string>;
  /** Every status of every custom resource and every event, as JSON, for a plaintext scan. */
  apiDump(): Promise<string>;
  close(): Promise<void>;
}

/**
 * The harness picks free ports by probing, so a suite running in parallel can take one before
 * kube-apiserver binds it; that start is retried.
 */
export async function startControlPlaneWithRetry(): Promise<KubeControlPlane> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startKubeControlPlane();
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('address already in use')) throw error;
    }
  }
}

export async function startOperatorTestBed(): Promise<OperatorTestBed> {
  const redis = await startRedisServer();
  if (!redis) throw new Error('redis-server is needed for the operator suites');
  const plane = await startControlPlaneWithRetry();
  const store = new RedisConfigStore({ url: redis.url });
  const encryptionKey = randomBytes(32);
  const logs: string[] = [];
  const operators: OperatorHandle[] = [];
  const operatorNamespace = 'gateway-system';
  await plane.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: operatorNamespace },
  });

  const request = async (method: string, path: string, body?: unknown, contentType?: string) => {
    const result = await plane.request(method, path, body, contentType);
    return result as { status: number; body: KubeObject & { items?: KubeObject[] } };
  };

  const testBed: OperatorTestBed = {
    plane,
    redis,
    store,
    encryptionKey,
    logs,
    async startOperator(options = {}) {
      const sink = new Writable({
        write(chunk, _encoding, done) {
          logs.push(String(chunk));
          done();
        },
      });
      const operator = await startClusterOperator({
        kubeconfigPath: plane.kubeconfigPath,
        redisUrl: redis.url,
        encryptionKey,
        // As the chart sets it (bootstrap.adminPat.tenant): only tenant-platform may hold an admin PAT.
        platformTenant: PLATFORM_TENANT,
        // As main/operator-role.ts sets it: a route's provider/ targets name the gateway's registry.
        routeProviders: [...PROVIDERS.keys()],
        leaseNamespace: operatorNamespace,
        ...TEST_LEASE,
        epochCheckIntervalMs: 300,
        retryBaseMs: 50,
        retryMaxMs: 2_000,
        log: pino({ level: 'debug', name: 'operator' }, sink),
        ...options,
      });
      operators.push(operator);
      return operator;
    },
    async apply(object) {
      const path = objectPath(object.kind as Kind, object.metadata.name, object.metadata.namespace);
      const result = await request(
        'PATCH',
        `${path}?fieldManager=test&force=true`,
        object,
        'application/apply-patch+yaml',
      );
      if (result.status >= 300)
        throw new Error(`apply ${path}: ${result.status} ${JSON.stringify(result.body)}`);
      return result.body;
    },
    async applyTenant(object) {
      await testBed.apply(object);
      const deadline = Date.now() + 15_000;
      while (!(await testBed.read('Namespace', `tenant-${object.metadata.name}`))) {
        if (Date.now() > deadline) throw new Error(`namespace of tenant ${object.metadata.name} not created`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async read(kind, name, namespace) {
      const result = await request('GET', objectPath(kind, name, namespace));
      if (result.status === 404) return undefined;
      if (result.status >= 300) throw new Error(`read ${kind} ${name}: ${result.status}`);
      return result.body;
    },
    async remove(kind, name, namespace) {
      const result = await request('DELETE', objectPath(kind, name, namespace));
      if (result.status >= 300 && result.status !== 404)
        throw new Error(`delete ${kind} ${name}: ${result.status}`);
    },
    async redisDump() {
      const { Redis } = await import('ioredis');
      const client = new Redis(redis.url);
      try {
        const values: string[] = [];
        for (const key of await client.keys('*')) {
          const type = await client.type(key);
          if (type === 'string') values.push((await client.get(key)) ?? '');
          else if (type === 'hash') values.push(JSON.stringify(await client.hgetall(key)));
          else values.push(`${key}:${type}`);
        }
        return values.join('\n');
      } finally {
        client.disconnect();
      }
    },
    async apiDump() {
      const parts: string[] = [];
      for (const plural of ['tenants', 'cachepolicies', 'connections', 'modelroutes']) {
        const list = await request('GET', `${GROUP_PATH}/${plural}`);
        for (const item of list.body.items ?? []) parts.push(JSON.stringify(item.status ?? {}));
      }
      for (const path of ['/apis/events.k8s.io/v1/events', '/api/v1/events']) {
        parts.push(JSON.stringify((await request('GET', path)).body));
      }
      return parts.join('\n');
    },
    async close() {
      await Promise.allSettled(operators.map((operator) => operator.stop()));
      await store.close();
      await plane.stop();
      await redis.stop();
    },
  };
  return testBed;
}

export function tenant(name: string, workspaces = [{ id: 'main', name: 'Main' }]): KubeObject {
  return {
    apiVersion: 'gateway.service.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name },
    spec: { displayName: `Tenant ${name}`, workspaces },
  };
}

export function secret(
  name: string,
  namespace: string,
  stringData: Record<string, string>,
  labels?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    type: 'Opaque',
    stringData,
  };
}

export function cachePolicy(name: string, namespace: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'gateway.service.io/v1alpha1',
    kind: 'CachePolicy',
    metadata: { name, namespace },
    spec,
  };
}

export function connection(name: string, namespace: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'gateway.service.io/v1alpha1',
    kind: 'Connection',
    metadata: { name, namespace },
    spec,
  };
}

export function modelRoute(name: string, namespace: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'gateway.service.io/v1alpha1',
    kind: 'ModelRoute',
    metadata: { name, namespace },
    spec,
  };
}

export function condition(object: KubeObject | undefined, type: string) {
  return object?.status?.conditions?.find((entry) => entry.type === type);
}
