/**
 * The gateway role for Kubernetes: stateless, reads the Redis config store kept by the operator.
 */

import { RevocationMirror, TokenVerifier } from '../auth/token-verifier.ts';
import type { Settings } from '../config/settings.ts';
import { SettingsError } from '../config/settings.ts';
import type { Logger } from '../observability/logger.ts';
import { startTracing } from '../observability/tracing.ts';
import { ConfigView } from '../stores/config-view.ts';
import { createGatewayServer } from './gateway-server.ts';
import { closeOnce, handleShutdownSignals, type ShutdownTarget } from './lifecycle.ts';
import { openStores, redisConnectionOf } from './open-stores.ts';

export interface RunningGateway extends ShutdownTarget {
  url: string;
}

/** Starts a gateway process's listener; `runGateway` adds the signal handling. */
export async function startGateway(settings: Readonly<Settings>, log: Logger): Promise<RunningGateway> {
  if (redisConnectionOf(settings) === undefined) {
    throw new SettingsError(
      'the gateway role needs REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS (use standalone without them)',
    );
  }
  const encryptionKey = settings.encryptionKey;
  if (encryptionKey === undefined) {
    throw new SettingsError(
      'the gateway role needs SERVICE_ENCRYPTION_KEY or SERVICE_ENCRYPTION_KEY_FILE (the key Connections are sealed with)',
    );
  }
  const stores = await openStores(settings, log);
  const view = await ConfigView.start(stores.config);
  const revocations = new RevocationMirror(stores.runtime, log);
  await revocations.start();
  const ephemeral = new TokenVerifier(settings.tokenSigningKeys, view, revocations);
  const gateway = await createGatewayServer({
    settings,
    view,
    runtime: stores.runtime,
    log,
    encryptionKey,
    ephemeral,
    ...(stores.breaker === undefined ? {} : { breaker: stores.breaker }),
    ...(stores.semanticMirrorStats === undefined ? {} : { semanticMirrorStats: stores.semanticMirrorStats }),
    tracing: await startTracing(process.env, 'gateway', log),
  });
  const address = await gateway.app.listen({ host: settings.host, port: settings.gatewayPort });
  log.info({ address }, 'gateway started');
  const closeListeners = closeOnce(() => gateway.app.close());
  return {
    url: address,
    beginDrain: () => gateway.app.beginDrain(),
    closeListeners,
    close: async () => {
      await closeListeners();
      await revocations.close();
      await view.close();
      // Independent connections: closed together (a stalled Redis gives each its QUIT's wait at once).
      await Promise.all([stores.config.close(), stores.runtime.close()]);
    },
  };
}

export async function runGateway(settings: Readonly<Settings>, log: Logger): Promise<void> {
  const running = await startGateway(settings, log);
  handleShutdownSignals(
    log,
    { drainDelayMs: settings.shutdownDrainDelayMs, graceMs: settings.shutdownGraceMs },
    running,
  );
}
