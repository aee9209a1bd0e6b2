/**
 * The operator against a real cluster and Redis: opens the Kubernetes transport, the informers,
 * the Lease client and the Redis config store, runs operator/operator.ts on them, and closes them
 * after it stops. Kept here so that operator/ holds decisions only and main/ the I/O (STYLE.md).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { OperatorLog } from '../operator/controller-support.ts';
import { type OperatorHandle, type OperatorOptions, startOperator } from '../operator/operator.ts';
import type { InformerTimings } from '../resources/kubernetes-informer.ts';
import { KubernetesLeases } from '../resources/kubernetes-leases.ts';
import { KubernetesResources } from '../resources/kubernetes-resources.ts';
import { type KubeConfig, KubeTransport, loadKubeConfig } from '../resources/kubernetes-transport.ts';
import type { RedisStoreOptions } from '../stores/redis-client.ts';
import { RedisConfigStore } from '../stores/redis-config-store.ts';
import type { ConfigStore } from '../stores/types.ts';

export interface ClusterOperatorOptions
  extends Omit<OperatorOptions, 'resources' | 'leases' | 'store' | 'identity' | 'log'> {
  /** The cluster: a KubeConfig, or a kubeconfig file; default KUBECONFIG, ~/.kube/config or in-cluster. */
  kubeConfig?: KubeConfig;
  kubeconfigPath?: string;
  /** The config store to write; or `redis` (or `redisUrl`) to open a RedisConfigStore (closed on stop). */
  configStore?: ConfigStore;
  redisUrl?: string;
  /** One Redis server, a cluster (REDIS_CLUSTER_NODES) or a Sentinel-managed master. */
  redis?: RedisStoreOptions;
  /** This replica's identity in the Lease; default `<hostname>_<uuid>`. */
  identity?: string;
  informerTimings?: Partial<InformerTimings>;
  /** Server-side apply field manager (status, namespaces; finalizers use `<it>-finalizers`). */
  fieldManager?: string;
  log?: OperatorLog;
}

const DEFAULT_FIELD_MANAGER = 'inference-gateway-operator';
const NO_LOG: OperatorLog = { info: () => {}, warn: () => {}, error: () => {} };

export async function startClusterOperator(options: ClusterOperatorOptions): Promise<OperatorHandle> {
  const log = options.log ?? NO_LOG;
  const identity = options.identity ?? `${hostname()}_${randomUUID()}`;
  const fieldManager = options.fieldManager ?? DEFAULT_FIELD_MANAGER;
  const redis = options.redis ?? (options.redisUrl === undefined ? undefined : { url: options.redisUrl });
  if (!options.configStore && redis === undefined)
    throw new Error('the operator needs a config store or a Redis connection');

  const kubeConfig = options.kubeConfig ?? loadKubeConfig(options.kubeconfigPath);
  const transport = new KubeTransport(kubeConfig, { userAgent: fieldManager });
  const resources = new KubernetesResources({
    transport,
    fieldManager,
    instance: identity,
    informerTimings: options.informerTimings,
    log,
  });
  const store =
    options.configStore ??
    new RedisConfigStore({
      ...(redis as RedisStoreOptions),
      onError: (error) => log.debug?.({ err: error }, 'redis'),
    });
  // A Lease call answers within half the renew deadline, so that a slow API server costs a renewal
  // attempt rather than the lease.
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const leases = new KubernetesLeases(transport, {
    timeoutMs: Math.max(500, Math.min(5_000, renewDeadlineMs / 2)),
  });

  const operator = await startOperator({ ...options, identity, log, resources, leases, store });
  let closing: Promise<void> | undefined;
  const closeAfter = (stopped: Promise<void>) => {
    closing ??= stopped.then(async () => {
      await resources.close();
      await transport.close();
      if (options.configStore === undefined) await store.close();
    });
    return closing;
  };
  return {
    identity: operator.identity,
    isLeader: () => operator.isLeader(),
    health: () => operator.health(),
    settled: () => operator.settled(),
    stop: () => closeAfter(operator.stop()),
    crash: () => closeAfter(operator.crash()),
  };
}
