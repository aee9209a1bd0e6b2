/**
 * The gateway role for Kubernetes: stateless, reads the Redis config store kept by the operator.
 */

import type { Settings } from '../config/settings.ts';
import { SettingsError } from '../config/settings.ts';
import type { Logger } from '../observability/logger.ts';
import { startTracing } from '../observability/tracing.ts';
import { startGatewayStack } from './gateway-stack.ts';
import { closeOnce, handleShutdownSignals, type ShutdownTarget } from './lifecycle.ts';
import { closeStores, openStores, redisConnectionOf } from './open-stores.ts';

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
  const stack = await startGatewayStack({
    settings,
    log,
    stores,
    encryptionKey,
    tracing: await startTracing(process.env, 'gateway', log),
  });
  const { gateway } = stack;
  const address = await gateway.app.listen({ host: settings.host, port: settings.gatewayPort });
  log.info({ address }, 'gateway started');
  const closeListeners = closeOnce(() => gateway.app.close());
  return {
    url: address,
    beginDrain: () => gateway.app.beginDrain(),
    closeListeners,
    close: async () => {
      await closeListeners();
      await stack.close();
      await closeStores(stores);
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
