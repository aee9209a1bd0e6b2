/**
 * The gateway's fastify app in-process, for `app.inject` tests of the request path: memory stores
 * seeded with one tenant, workspace and API key (no reconcile step, no control plane, no listener),
 * and the providers' base URLs pointing at fake upstreams the test starts.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { generateCredential } from '../../src/auth/credential-hash.ts';
import { loadSettings } from '../../src/config/settings.ts';
import { createGatewayServer } from '../../src/main/gateway-server.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { PROVIDER_NAMES } from '../../src/providers/registry.ts';
import { ConfigView } from '../../src/stores/config-view.ts';
import { MemoryConfigStore } from '../../src/stores/memory-config-store.ts';
import { MemoryRuntimeStore } from '../../src/stores/memory-runtime-store.ts';

export interface InjectGateway {
  app: FastifyInstance;
  apiKey: string;
  runtime: MemoryRuntimeStore;
  close(): Promise<void>;
}

export const INJECT_TENANT = 'acme';
export const INJECT_WORKSPACE = 'main';

export async function startInjectGateway(env: Record<string, string>): Promise<InjectGateway> {
  const settings = loadSettings({ LOG_LEVEL: 'silent', ...env }, PROVIDER_NAMES);
  const config = new MemoryConfigStore();
  const key = generateCredential('tt_sk_');
  await config.put('tenant', INJECT_TENANT, {
    v: 1,
    id: INJECT_TENANT,
    displayName: 'Acme',
    billingMode: 'delegated',
    strictByok: false,
    workspaces: [{ id: INJECT_WORKSPACE, name: 'Main' }],
  });
  await config.put('apiKey', key.id, {
    v: 1,
    id: key.id,
    hash: key.hash,
    tenantId: INJECT_TENANT,
    workspaceId: INJECT_WORKSPACE,
    grants: ['chat:write', 'embed'],
    createdAt: new Date().toISOString(),
  });
  // Built, as the reconciler leaves it after a full sync.
  await config.setEpoch('inject');
  const view = await ConfigView.start(config);
  const runtime = await MemoryRuntimeStore.open({});
  const server = await createGatewayServer({
    settings,
    view,
    runtime,
    log: createLogger('silent', 'inject'),
    encryptionKey: randomBytes(32),
  });
  await server.app.ready();
  return {
    app: server.app,
    apiKey: key.plaintext,
    runtime,
    async close() {
      await server.app.close();
      await view.close();
      await runtime.close();
      await config.close();
    },
  };
}
