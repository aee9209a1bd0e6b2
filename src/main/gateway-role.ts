/**
 * The gateway role for Kubernetes: stateless, reads the Redis config store kept by the operator.
 */
import type { Settings } from '../config/settings.ts';
import { SettingsError } from '../config/settings.ts';
import type { Logger } from '../observability/logger.ts';
import { ConfigView } from '../stores/config-view.ts';
import { createGatewayServer } from './gateway-server.ts';
import { handleShutdownSignals } from './lifecycle.ts';
import { openStores } from './open-stores.ts';

export async function runGateway(settings: Readonly<Settings>, log: Logger): Promise<void> {
  if (settings.redisUrl === undefined) {
    throw new SettingsError('the gateway role needs REDIS_URL (use standalone without it)');
  }
  const encryptionKey = settings.encryptionKey;
  if (encryptionKey === undefined) {
    throw new SettingsError(
      'the gateway role needs SERVICE_ENCRYPTION_KEY (the key Connections are sealed with)',
    );
  }
  const stores = await openStores(settings);
  const view = await ConfigView.start(stores.config);
  const gateway = await createGatewayServer({ settings, view, runtime: stores.runtime, log, encryptionKey });
  const address = await gateway.app.listen({ host: settings.host, port: settings.gatewayPort });
  log.info({ address }, 'gateway started');
  handleShutdownSignals(log, settings.shutdownGraceMs, [
    () => gateway.app.close(),
    () => view.close(),
    () => stores.config.close(),
    () => stores.runtime.close(),
  ]);
}
