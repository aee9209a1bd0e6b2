/**
 * The operator role for Kubernetes: reconciles Tenant, CachePolicy, Connection and ModelRoute into
 * the Redis config store, with leader election so that several replicas can run. Needs REDIS_URL and
 * SERVICE_ENCRYPTION_KEY (or SERVICE_ENCRYPTION_KEY_FILE); the cluster comes from KUBECONFIG or the in-cluster service account.
 * Serves /healthz (the process is up) and /readyz (the caches are filled) on OPERATOR_PORT.
 */

import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { Settings } from '../config/settings.ts';
import { SettingsError } from '../config/settings.ts';
import type { Logger } from '../observability/logger.ts';
import { createOperatorMetrics, type OperatorMetrics } from '../observability/operator-metrics.ts';
import { startTracing } from '../observability/tracing.ts';
import type { OperatorHandle } from '../operator/operator.ts';
import { PROVIDERS } from '../providers/registry.ts';
import { closeOnce, handleShutdownSignals } from './lifecycle.ts';
import { redisConnectionOf } from './open-stores.ts';
import { startClusterOperator } from './operator-io.ts';

const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The Lease's namespace: the setting, else the pod's own namespace when in a cluster, else `default`. */
async function leaseNamespace(settings: Readonly<Settings>): Promise<string> {
  if (settings.operator.namespace) return settings.operator.namespace;
  try {
    return (await readFile(IN_CLUSTER_NAMESPACE_FILE, 'utf8')).trim() || 'default';
  } catch {
    return 'default';
  }
}

async function serveProbes(
  settings: Readonly<Settings>,
  operator: OperatorHandle,
  metrics: OperatorMetrics,
  log: Logger,
): Promise<Server> {
  const server = createServer((request, response) => {
    const health = operator.health();
    const path = (request.url ?? '').split('?')[0];
    const reply = (status: number, body: object) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (path === '/healthz') reply(200, { status: 'ok' });
    else if (path === '/readyz') reply(health.synced ? 200 : 503, health);
    else if (path === '/metrics') {
      void metrics.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => reply(500, { error: 'metrics failed' }),
      );
    } else reply(404, { error: 'not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.operator.port, settings.host, resolve);
  });
  log.info({ address: server.address() }, 'operator probes listening');
  return server;
}

export async function runOperator(settings: Readonly<Settings>, log: Logger): Promise<void> {
  const redis = redisConnectionOf(settings);
  if (redis === undefined)
    throw new SettingsError('the operator role needs REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS');
  if (settings.encryptionKey === undefined)
    throw new SettingsError(
      'the operator role needs SERVICE_ENCRYPTION_KEY or SERVICE_ENCRYPTION_KEY_FILE (32 bytes, hex or base64)',
    );
  const tracing = await startTracing(process.env, 'operator', log);
  let handle: OperatorHandle | undefined;
  const metrics = createOperatorMetrics(
    () => handle?.health() ?? { leader: false, synced: false, queued: 0 },
  );
  const operator = await startClusterOperator({
    tracing,
    recordReconcile: (kind, result, seconds) => {
      metrics.reconciles.inc({ kind, result });
      metrics.reconcileSeconds.observe({ kind }, seconds);
    },
    redis,
    encryptionKey: settings.encryptionKey,
    platformTenant: settings.platformTenant,
    routeProviders: [...PROVIDERS.keys()],
    leaseNamespace: await leaseNamespace(settings),
    leaseName: settings.operator.leaseName,
    identity: settings.operator.identity,
    tenantRoleBindings: settings.operator.tenantRoleBindings,
    resyncIntervalMs: settings.operator.resyncSeconds * 1000,
    epochCheckIntervalMs: settings.operator.epochCheckSeconds * 1000,
    log,
  });
  handle = operator;
  const probes =
    settings.operator.port === 0 ? undefined : await serveProbes(settings, operator, metrics, log);
  const closeProbes = closeOnce(
    () => new Promise<void>((resolve) => (probes ? probes.close(() => resolve()) : resolve())),
  );
  // No traffic to drain (its port serves probes and metrics only): no drain delay.
  handleShutdownSignals(
    log,
    { drainDelayMs: 0, graceMs: settings.shutdownGraceMs },
    {
      beginDrain: () => {},
      closeListeners: closeProbes,
      close: async () => {
        await closeProbes();
        // Releasing the Lease lets a standby take over at once instead of after its expiry.
        await operator.stop();
        await tracing.shutdown();
      },
    },
  );
}
