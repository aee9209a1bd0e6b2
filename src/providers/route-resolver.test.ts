import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeConnection, makeTenant } from '../../test/contract/config-fixtures.ts';
import type { Principal } from '../auth/principal.ts';
import { ConnectionNotFoundError, InvalidRequestError } from '../errors/gateway-error.ts';
import { ConfigView } from '../stores/config-view.ts';
import { MemoryConfigStore } from '../stores/memory-config-store.ts';
import { createPlatformEndpoints } from './platform-routes.ts';
import { RouteResolver } from './route-resolver.ts';

const PRINCIPAL: Principal = {
  kind: 'api-key',
  tenantId: 't1',
  workspaceId: 'w1',
  keyId: 'k1',
  grants: new Set(['chat:write']),
};

let store: MemoryConfigStore;
let view: ConfigView;
let resolver: RouteResolver;

beforeEach(async () => {
  store = new MemoryConfigStore();
  await store.put('tenant', 't1', makeTenant('t1'));
  await store.put(
    'connection',
    'c-default',
    makeConnection('c-default', { slug: 'team-openai', defaultModel: 'gpt-4o-mini' }),
  );
  await store.put('connection', 'c-bare', makeConnection('c-bare', { slug: 'no-default' }));
  await store.put(
    'connection',
    'c-vertex',
    makeConnection('c-vertex', { slug: 'team-vertex', provider: 'vertex', sealedSecret: '{}' }),
  );
  // A built store: the view serves only a store whose epoch the reconciler set.
  await store.setEpoch('built');
  view = await ConfigView.start(store);
  resolver = new RouteResolver({
    endpoints: createPlatformEndpoints({
      providerEnv: { openai: { apiKey: 'sk-platform' } },
      platformAws: {},
    }),
    defaultProvider: 'openai',
    view,
    // The fixtures' sealed secret is a marker: a Vertex Connection whose secret is empty, else a key.
    unseal: (sealed) => (sealed === '{}' ? {} : { apiKey: 'sk-tenant' }),
  });
});

afterEach(async () => {
  await view.close();
});

const resolve = (model: string, byokRequired = false) =>
  resolver.resolve(model, 'chat', PRINCIPAL, byokRequired);

describe('RouteResolver', () => {
  it("serves `@slug` and `@slug/` with the Connection's defaultModel", () => {
    for (const model of ['@team-openai', '@team-openai/']) {
      const route = resolve(model);
      expect(route.upstreamModel).toBe('gpt-4o-mini');
      expect(route.byok).toBe(true);
      expect(route.credential).toEqual({ id: 'c-default', slug: 'team-openai' });
      expect(route.headers.authorization).toBe('Bearer sk-tenant');
    }
  });

  it('keeps a model named after the slug over the default', () => {
    expect(resolve('@team-openai/gpt-4.1').upstreamModel).toBe('gpt-4.1');
  });

  it('answers 400 naming the rule when the Connection has no defaultModel', () => {
    expect(() => resolve('@no-default')).toThrow(InvalidRequestError);
    expect(() => resolve('@no-default/')).toThrow(
      "model '@no-default/' names no model and connection 'no-default' has no defaultModel; use @no-default/<model>",
    );
  });

  it('answers 400 for `@slug` alone when no Connection has that slug (nothing to fall back to), 404 when BYOK is required', () => {
    expect(() => resolve('@nobody')).toThrow(/no connection 'nobody' supplies a default/);
    expect(() => resolve('@nobody', true)).toThrow(ConnectionNotFoundError);
    // With a model, the specification's fallback to the platform key stays.
    expect(resolve('@nobody/gpt-4o').byok).toBe(false);
  });

  it('still refuses a bare `@`', () => {
    expect(() => resolve('@')).toThrow(InvalidRequestError);
    expect(() => resolve('@/gpt-4o')).toThrow(InvalidRequestError);
  });

  it('says a Vertex Connection lacks a service account, not that the platform has no credential', () => {
    const error = (() => {
      try {
        resolve('@team-vertex/gemini-2.5-flash');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toBe(
      "connection 'team-vertex' has no service account (gcpServiceAccountJson in its secret), nor an API key",
    );
  });
});
