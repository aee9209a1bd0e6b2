/**
 * Standalone: gateway, reconcile step and control plane in one process with embedded stores
 * (or Redis with REDIS_URL). DESIGN section 8 is its contract.
 */

import { join } from 'node:path';
import { digestSecret, loadOrCreateKeyFile, sealSecret } from '../auth/secret-box.ts';
import type { Settings } from '../config/settings.ts';
import { buildControlPlaneApp } from '../control-plane/control-plane-app.ts';
import { createControlPlaneMetrics } from '../observability/control-plane-metrics.ts';
import type { Logger } from '../observability/logger.ts';
import { startTracing } from '../observability/tracing.ts';
import { LocalReconciler } from '../operator/config-sync.ts';
import { createPlatformEndpoints, platformProvidersOf } from '../providers/platform-routes.ts';
import { PROVIDERS } from '../providers/registry.ts';
import { LocalResources } from '../resources/local-resources.ts';
import type { ResourcesClient } from '../resources/types.ts';
import type { ConfigView } from '../stores/config-view.ts';
import {
  BOOTSTRAP_TENANT,
  bootstrapIfEmpty,
  renderBootstrapBanner,
  writeBootstrapFile,
} from './bootstrap.ts';
import { startGatewayStack } from './gateway-stack.ts';
import { type Closer, closeOnce, handleShutdownSignals, type ShutdownTarget } from './lifecycle.ts';
import { closeStores, openStores, type Stores } from './open-stores.ts';

export interface RunningStandalone extends ShutdownTarget {
  gatewayUrl: string;
  controlUrl: string;
  resources: ResourcesClient;
  stores: Stores;
  view: ConfigView;
  /** Resolves when every resource change so far is in the config store and this process's view. */
  settled(): Promise<void>;
}

export interface StandaloneOptions {
  /** Where the one-time credentials banner goes (stdout by default). */
  announce?: (text: string) => void;
}

export async function startStandalone(
  settings: Readonly<Settings>,
  log: Logger,
  options: StandaloneOptions = {},
): Promise<RunningStandalone> {
  const stores = await openStores(settings, log);
  const encryptionKey =
    settings.encryptionKey ?? (await loadOrCreateKeyFile(join(settings.stateDir, 'encryption.key')));
  const resources = await LocalResources.open({
    stateFile: join(settings.stateDir, 'resources.json'),
    resourcesDir: settings.resourcesDir,
    log,
  });
  const bootstrap = await bootstrapIfEmpty(resources, settings.stateDir);
  // The first start's tenant holds the admin PAT it prints and may share routes; PLATFORM_TENANT
  // names another.
  const platformTenant = settings.platformTenant ?? BOOTSTRAP_TENANT;
  const reconciler = new LocalReconciler({
    resources,
    store: stores.config,
    sealing: {
      seal: (value) => sealSecret(encryptionKey, value),
      digest: (value) => digestSecret(encryptionKey, value),
    },
    credentialPolicy: { platformTenant, routeProviders: [...PROVIDERS.keys()] },
    log,
  });
  await reconciler.start();
  if (bootstrap !== undefined)
    await stores.runtime.initBalance(BOOTSTRAP_TENANT, settings.bootstrapBalanceMicros);

  // One tracer provider for both apps; the gateway's close flushes it.
  const tracing = await startTracing(process.env, 'standalone', log);
  const stack = await startGatewayStack({ settings, log, stores, encryptionKey, tracing });
  const { view, gateway } = stack;
  const control = await buildControlPlaneApp({
    log,
    tracing,
    // The process's own metrics are on the gateway's registry already.
    metrics: createControlPlaneMetrics(undefined, false),
    isReady: () => stores.runtime.ping(),
    limits: { introspection: settings.graphqlIntrospection },
    graphqlOnFirstRequest: true,
    tenancy: settings.tenancy,
    services: {
      view,
      runtime: stores.runtime,
      resources,
      signingKey: settings.tokenSigningKeys[0],
      // Standalone's gateway reads this same view: once the reconcile is done and the view
      // refreshed, a change is in force on the gateway.
      awaitConfig: async (kind, id, predicate) => {
        await reconciler.synced();
        await view.refresh();
        await view.whenApplied(kind, id, predicate, 10_000);
      },
      platformProviders: platformProvidersOf(createPlatformEndpoints(settings)),
      platformTenant,
      ...(settings.platformAws.stsUrl === undefined
        ? {}
        : { probeOptions: { stsUrl: settings.platformAws.stsUrl } }),
      secretDigest: (material) => digestSecret(encryptionKey, material),
      log,
    },
  });
  const beginDrain = () => {
    gateway.app.beginDrain();
    control.beginDrain();
  };
  // Listeners first: stop accepting, let open requests and streams finish.
  const closeListeners = closeOnce(async () => {
    await Promise.all([gateway.app.close(), control.close()]);
  });
  const close: Closer = async () => {
    await closeListeners();
    await reconciler.stop();
    await stack.close();
    await resources.close();
    await closeStores(stores);
  };
  let gatewayAddress: string;
  let controlAddress: string;
  try {
    gatewayAddress = await gateway.app.listen({ host: settings.host, port: settings.gatewayPort });
    controlAddress = await control.listen({ host: settings.host, port: settings.controlPort });
  } catch (error) {
    await close();
    throw error;
  }
  log.info({ gateway: gatewayAddress, control: controlAddress, stores: stores.kind }, 'standalone started');

  if (bootstrap !== undefined) {
    (options.announce ?? ((text) => process.stdout.write(text)))(
      renderBootstrapBanner(bootstrap.credentials, gatewayAddress),
    );
    if (settings.bootstrapFile !== undefined)
      await writeBootstrapFile(settings.bootstrapFile, bootstrap.credentials);
    await resources.flush();
    await bootstrap.delivered();
  }

  const settled = async () => {
    await reconciler.synced();
    await view.refresh();
  };
  return {
    gatewayUrl: gatewayAddress,
    controlUrl: controlAddress,
    resources,
    stores,
    view,
    settled,
    beginDrain,
    closeListeners,
    close,
  };
}

export async function runStandalone(settings: Readonly<Settings>, log: Logger): Promise<void> {
  const running = await startStandalone(settings, log);
  handleShutdownSignals(
    log,
    { drainDelayMs: settings.shutdownDrainDelayMs, graceMs: settings.shutdownGraceMs },
    running,
  );
}
