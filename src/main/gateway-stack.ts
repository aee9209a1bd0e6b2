/**
 * The gateway's part of a process, on stores already open: the config view, the revocation feed,
 * the ephemeral-token verifier and the gateway listener (built, not yet listening). The gateway
 * role and standalone both run it, so that the two cannot drift apart.
 */
import { RevocationMirror, TokenVerifier } from '../auth/token-verifier.ts';
import type { Settings } from '../config/settings.ts';
import type { Logger } from '../observability/logger.ts';
import type { Tracing } from '../observability/tracing.ts';
import { ConfigView } from '../stores/config-view.ts';
import { createGatewayServer, type GatewayServer } from './gateway-server.ts';
import type { Stores } from './open-stores.ts';

export interface GatewayStack {
  view: ConfigView;
  gateway: GatewayServer;
  /** After the listener has closed: stops the revocation feed and the view (the stores stay open). */
  close(): Promise<void>;
}

export async function startGatewayStack(options: {
  settings: Readonly<Settings>;
  log: Logger;
  stores: Stores;
  /** The at-rest key that opens Connections' sealed secrets. */
  encryptionKey: Uint8Array;
  /** Shut down (flushed) when the gateway listener closes. */
  tracing: Tracing;
}): Promise<GatewayStack> {
  const { settings, log, stores } = options;
  const view = await ConfigView.start(stores.config);
  const revocations = new RevocationMirror(stores.runtime, log);
  await revocations.start();
  const gateway = await createGatewayServer({
    settings,
    view,
    runtime: stores.runtime,
    log,
    encryptionKey: options.encryptionKey,
    ephemeral: new TokenVerifier(settings.tokenSigningKeys, view, revocations),
    ...(stores.breaker === undefined ? {} : { breaker: stores.breaker }),
    ...(stores.semanticMirrorStats === undefined ? {} : { semanticMirrorStats: stores.semanticMirrorStats }),
    tracing: options.tracing,
  });
  return {
    view,
    gateway,
    close: async () => {
      await revocations.close();
      await view.close();
    },
  };
}
