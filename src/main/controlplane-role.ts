/**
 * The control-plane role for Kubernetes: GraphQL over the Kubernetes resources (CRs and Secrets
 * written with its own field manager) and the Redis stores. A configuration change is in force on
 * the gateways when this process's view of the config store (which the operator writes) shows it.
 */

import { digestSecret } from '../auth/secret-box.ts';
import type { Settings } from '../config/settings.ts';
import { SettingsError } from '../config/settings.ts';
import { buildControlPlaneApp } from '../control-plane/control-plane-app.ts';
import type { Logger } from '../observability/logger.ts';
import { startTracing } from '../observability/tracing.ts';
import { createPlatformEndpoints, platformProvidersOf } from '../providers/platform-routes.ts';
import { KubernetesResources } from '../resources/kubernetes-resources.ts';
import { ConfigView } from '../stores/config-view.ts';
import { closeOnce, handleShutdownSignals, type ShutdownTarget } from './lifecycle.ts';
import { closeStores, openStores, redisConnectionOf } from './open-stores.ts';

/** How long a mutation waits for the operator to publish its change. */
const PROPAGATION_TIMEOUT_MS = 15_000;

export interface RunningControlPlane extends ShutdownTarget {
  url: string;
}

export async function startControlPlane(
  settings: Readonly<Settings>,
  log: Logger,
): Promise<RunningControlPlane> {
  if (redisConnectionOf(settings) === undefined)
    throw new SettingsError('the controlplane role needs REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS');
  const stores = await openStores(settings, log);
  const { encryptionKey } = settings;
  const view = await ConfigView.start(stores.config);
  const resources = new KubernetesResources({ fieldManager: 'inference-gateway-controlplane', log });
  const tracing = await startTracing(process.env, 'controlplane', log);
  const app = await buildControlPlaneApp({
    log,
    tracing,
    isReady: () => stores.runtime.ping(),
    limits: { introspection: settings.graphqlIntrospection },
    tenancy: settings.tenancy,
    services: {
      view,
      runtime: stores.runtime,
      resources,
      signingKey: settings.tokenSigningKeys[0],
      awaitConfig: async (kind, id, predicate) => {
        await view.whenApplied(kind, id, predicate, PROPAGATION_TIMEOUT_MS);
      },
      // The gateways' platform keys: this process is given the same provider settings.
      platformProviders: platformProvidersOf(createPlatformEndpoints(settings)),
      platformTenant: settings.platformTenant,
      ...(settings.platformAws.stsUrl === undefined
        ? {}
        : { probeOptions: { stsUrl: settings.platformAws.stsUrl } }),
      // With the at-rest key, a credential upsert waits for exactly its own secret's digest.
      ...(encryptionKey === undefined
        ? {}
        : { secretDigest: (material: Record<string, string>) => digestSecret(encryptionKey, material) }),
      log,
    },
  });
  const url = await app.listen({ host: settings.host, port: settings.controlPort });
  log.info({ url }, 'control plane started');
  const closeListeners = closeOnce(() => app.close());
  return {
    url,
    beginDrain: () => app.beginDrain(),
    closeListeners,
    close: async () => {
      await closeListeners();
      await resources.close();
      await view.close();
      await closeStores(stores);
      await tracing.shutdown();
    },
  };
}

export async function runControlPlane(settings: Readonly<Settings>, log: Logger): Promise<void> {
  const running = await startControlPlane(settings, log);
  handleShutdownSignals(
    log,
    { drainDelayMs: settings.shutdownDrainDelayMs, graceMs: settings.shutdownGraceMs },
    running,
  );
}
