/**
 * The whole Kubernetes path: a Tenant, its workspace key Secret, a Connection and its Secret applied
 * to the API server; the operator reconciles them into Redis; a gateway process reading only that
 * Redis serves a request through the Connection, with the tenant's own key, to a fake upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { loadSettings } from '../../../src/config/settings.ts';
import { type RunningControlPlane, startControlPlane } from '../../../src/main/controlplane-role.ts';
import { type RunningGateway, startGateway } from '../../../src/main/gateway-role.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { PROVIDER_NAMES } from '../../../src/providers/registry.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { postJson } from '../../helpers/test-gateway.ts';
import {
  condition,
  connection,
  type OperatorTestBed,
  operatorSuitesAvailable,
  secret,
  startOperatorTestBed,
  tenant,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable();
const TENANT_KEY = 'sk-tenant-own-key-e2e-0123456789';

describe.runIf(available)('kubectl apply to a served request', () => {
  let bed: OperatorTestBed;
  let upstream: FakeServer;
  let gateway: RunningGateway;
  let controlPlane: RunningControlPlane;
  const apiKey = generateCredential('tt_sk_');
  const pat = generateCredential('tt_pat_');
  const ns = 'tenant-initech';

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    upstream = await startFakeOpenAi();
    await bed.startOperator();
    const settings = loadSettings(
      {
        HOST: '127.0.0.1',
        GATEWAY_PORT: '0',
        REDIS_URL: bed.redis.url,
        SERVICE_ENCRYPTION_KEY: bed.encryptionKey.toString('hex'),
        LOG_LEVEL: 'silent',
      },
      PROVIDER_NAMES,
    );
    gateway = await startGateway(settings, createLogger('silent', 'gateway'));
    // The control-plane role finds the cluster through KUBECONFIG, as in a pod it would through
    // its service account.
    process.env.KUBECONFIG = bed.plane.kubeconfigPath;
    controlPlane = await startControlPlane(
      loadSettings(
        {
          HOST: '127.0.0.1',
          CONTROL_PORT: '0',
          REDIS_URL: bed.redis.url,
          SERVICE_ENCRYPTION_KEY: bed.encryptionKey.toString('hex'),
          SERVICE_TOKEN_SIGNING_KEY: 'e2e-signing-key-0123456789abcdef0123456789',
          LOG_LEVEL: 'silent',
        },
        PROVIDER_NAMES,
      ),
      createLogger('silent', 'controlplane'),
    );
  });
  afterAll(async () => {
    await controlPlane?.close();
    await gateway?.close();
    await upstream?.stop();
    await bed?.close();
  });

  it("serves @slug/model with the Connection's key on its upstream", async () => {
    await bed.applyTenant(tenant('initech'));
    await bed.apply(
      secret(
        'workspace-key',
        ns,
        { id: apiKey.id, hash: apiKey.hash, workspace: 'main' },
        { 'gateway.service.io/credential': 'api-key' },
      ),
    );
    await bed.apply(secret('llm-key', ns, { apiKey: TENANT_KEY }));
    await bed.apply(
      connection('llm', ns, {
        provider: 'openai-compatible',
        baseUrl: `${upstream.url}/v1`,
        secretRef: { name: 'llm-key' },
      }),
    );
    await expect
      .poll(async () => condition(await bed.read('Connection', 'llm', ns), 'Ready')?.status, {
        timeout: 10_000,
      })
      .toBe('True');

    // The gateway's view follows the store's change feed; poll until it serves.
    const chat = { model: '@llm/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };
    await expect
      .poll(
        async () => (await postJson(`${gateway.url}/v1/chat/completions`, chat, apiKey.plaintext)).status,
        {
          timeout: 10_000,
        },
      )
      .toBe(200);
    const request = upstream.requests.at(-1);
    expect(request?.headers.authorization).toBe(`Bearer ${TENANT_KEY}`);
    expect((request?.body as { model?: string } | undefined)?.model).toBe('gpt-4o');
  });

  it('the control-plane role writes resources the operator publishes: a new key works when the call returns', async () => {
    await bed.apply(
      secret(
        'admin-pat',
        ns,
        {
          id: pat.id,
          hash: pat.hash,
          permissions: 'tokens:mint,keys:manage,cache:manage,credentials:manage',
          admin: 'false',
        },
        { 'gateway.service.io/credential': 'pat' },
      ),
    );
    const call = (query: string) => graphql(controlPlane.url, pat.plaintext, query);
    await expect.poll(async () => (await call('{ apiKeys { id } }')).status, { timeout: 10_000 }).toBe(200);

    const created = await call('mutation { createApiKey(workspaceId: "main") { id key } }');
    expect(created.errors).toBeUndefined();
    const { key } = (created.data as { createApiKey: { key: string } }).createApiKey;
    // A Secret in the tenant's namespace, reconciled by the operator, already in force on the gateway.
    const chat = { model: '@llm/gpt-4o', messages: [{ role: 'user', content: 'Hi again' }] };
    expect((await postJson(`${gateway.url}/v1/chat/completions`, chat, key)).status).toBe(200);

    const policy = await call(
      'mutation { upsertCachePolicy(input: { name: "docs", ttlSeconds: 60 }) { name ttlSeconds } }',
    );
    expect(policy.data).toEqual({ upsertCachePolicy: { name: 'docs', ttlSeconds: 60 } });
    const policies = await bed.plane.request(
      'GET',
      `/apis/gateway.service.io/v1alpha1/namespaces/${ns}/cachepolicies`,
    );
    expect(JSON.stringify(policies.body)).toContain('"policyName":"docs"');

    // An invalid policy is refused with VALIDATION_ERROR (the same rules as the CRD's CEL).
    const invalid = await call(
      'mutation { upsertCachePolicy(input: { name: "bad", ttlSeconds: 100, maxTtlSeconds: 10 }) { name } }',
    );
    expect(invalid.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
  });

  it('upsertProviderCredential writes a Connection and Secret the operator publishes: in force when the call returns', async () => {
    const call = (query: string, variables: Record<string, unknown> = {}) =>
      graphql(controlPlane.url, pat.plaintext, query, variables);
    const upsert = `mutation($apiKey: String, $baseUrl: String) {
      upsertProviderCredential(providerName: "openai-compatible", slug: "own", apiKey: $apiKey, baseUrl: $baseUrl) {
        id keyHint ready
      }
    }`;
    // Each request asks something new: this gateway caches, and a hit would not reach the upstream.
    const chat = (content: string) => ({ model: '@own/gpt-4o', messages: [{ role: 'user', content }] });
    const created = await call(upsert, {
      apiKey: 'sk-own-key-first-0123456789',
      baseUrl: `${upstream.url}/v1`,
    });
    expect(created.data).toEqual({
      upsertProviderCredential: { id: 'initech/own', keyHint: 'sk-…6789', ready: true },
    });
    expect(
      (await postJson(`${gateway.url}/v1/chat/completions`, chat('first key'), apiKey.plaintext)).status,
    ).toBe(200);
    expect(upstream.requests.at(-1)?.headers.authorization).toBe('Bearer sk-own-key-first-0123456789');
    const stored = await bed.plane.request('GET', `/api/v1/namespaces/${ns}/secrets/own-credential`);
    expect(stored.status).toBe(200);

    // A new key (base URL left out: kept) is in force when the call returns.
    const rotated = await call(upsert, { apiKey: 'sk-own-key-second-9876543210' });
    expect(rotated.data).toEqual({
      upsertProviderCredential: { id: 'initech/own', keyHint: 'sk-…3210', ready: true },
    });
    expect(
      (await postJson(`${gateway.url}/v1/chat/completions`, chat('second key'), apiKey.plaintext)).status,
    ).toBe(200);
    expect(upstream.requests.at(-1)?.headers.authorization).toBe('Bearer sk-own-key-second-9876543210');

    const revoked = await call('mutation { revokeProviderCredential(slug: "own") }');
    expect(revoked.data).toEqual({ revokeProviderCredential: true });
    const strict = await postJson(`${gateway.url}/v1/chat/completions`, chat('revoked'), apiKey.plaintext, {
      'x-service-byok': 'required',
    });
    expect(strict.status).toBe(404);
  });
});
