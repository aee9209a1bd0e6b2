/**
 * KubernetesResources as a ResourcesClient (what the control plane writes through) against the real
 * API server: server-side apply with its own field manager, the CRDs' validation messages, reads
 * from the informer caches once started, status through the status subresource, watch, delete.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KubernetesResources } from '../../../src/resources/kubernetes-resources.ts';
import { ResourceNotFoundError, ResourceValidationError } from '../../../src/resources/resource-errors.ts';
import {
  API_VERSION,
  type CachePolicyResource,
  type ResourceEvent,
  type TenantResource,
} from '../../../src/resources/types.ts';
import { type KubeControlPlane, kubeAvailable } from '../../helpers/kube-control-plane.ts';
import { startControlPlaneWithRetry } from './operator-test-bed.ts';

const available = kubeAvailable();

const tenant: TenantResource = {
  apiVersion: API_VERSION,
  kind: 'Tenant',
  metadata: { name: 'globex' },
  spec: { displayName: 'Globex', workspaces: [{ id: 'main', name: 'Main' }] },
};
const policy = (spec: CachePolicyResource['spec']): CachePolicyResource => ({
  apiVersion: API_VERSION,
  kind: 'CachePolicy',
  metadata: { name: 'default', namespace: 'tenant-globex' },
  spec,
});

describe.runIf(available)('KubernetesResources', () => {
  let plane: KubeControlPlane;
  let resources: KubernetesResources;
  const events: ResourceEvent[] = [];

  beforeAll(async () => {
    plane = await startControlPlaneWithRetry();
    for (const name of ['tenant-globex', 'elsewhere']) {
      await plane.request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
    }
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(plane.kubeconfigPath);
    resources = new KubernetesResources({ kubeConfig, fieldManager: 'control-plane-test' });
  });
  afterAll(async () => {
    await resources?.close();
    await plane?.stop();
  });

  it('applies with its own field manager and reads back from the API before the informers start', async () => {
    const applied = await resources.apply(tenant);
    expect(applied.metadata.uid).toBeTruthy();
    expect(applied.metadata.generation).toBe(1);
    const raw = await plane.request('GET', '/apis/gateway.service.io/v1alpha1/tenants/globex');
    const managers = (raw.body as { metadata: { managedFields: { manager: string; operation: string }[] } })
      .metadata.managedFields;
    expect(managers).toContainEqual(
      expect.objectContaining({ manager: 'control-plane-test', operation: 'Apply' }),
    );
    expect((await resources.get('Tenant', 'globex'))?.spec.displayName).toBe('Globex');
    expect((await resources.list('Tenant')).map((item) => item.metadata.name)).toEqual(['globex']);
  });

  it("refuses an invalid object with the CRD's own message", async () => {
    const refusal = await resources
      .apply(policy({ ttlSeconds: 600, maxTtlSeconds: 60 }))
      .catch((error) => error);
    expect(refusal).toBeInstanceOf(ResourceValidationError);
    expect((refusal as ResourceValidationError).messages.join('\n')).toContain(
      'spec.ttlSeconds must be <= spec.maxTtlSeconds',
    );
  });

  it('serves reads from the informer caches once started, and tells watchers about changes', async () => {
    const unwatch = resources.watch((event) => events.push(event));
    await resources.whenSynced();
    await resources.apply(policy({ ttlSeconds: 60 }));
    await resources.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'key', namespace: 'tenant-globex' },
      stringData: { apiKey: 'sk-globex' },
    });
    await vi.waitFor(() => expect(resources.cached('Secret', 'key', 'tenant-globex')).toBeDefined());
    const secret = await resources.get('Secret', 'key', 'tenant-globex');
    expect(Buffer.from(secret?.data?.apiKey ?? '', 'base64').toString()).toBe('sk-globex');
    expect(secret?.kind).toBe('Secret');
    expect(
      (await resources.list('CachePolicy', 'tenant-globex')).map((item) => item.spec.ttlSeconds),
    ).toEqual([60]);
    expect(
      events.map((event) => `${event.type} ${event.resource.kind}/${event.resource.metadata.name}`),
    ).toEqual(
      expect.arrayContaining(['added Tenant/globex', 'added CachePolicy/default', 'added Secret/key']),
    );
    unwatch();
  });

  it('caches only Secrets of tenant namespaces, and reads others from the API', async () => {
    await resources.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'other', namespace: 'elsewhere' },
      stringData: { value: 'x' },
    });
    expect(resources.cached('Secret', 'other', 'elsewhere')).toBeUndefined();
    expect((await resources.get('Secret', 'other', 'elsewhere'))?.metadata.name).toBe('other');
    expect(
      resources.cachedList('Secret').every((item) => item.metadata.namespace?.startsWith('tenant-')),
    ).toBe(true);
  });

  it('leaves out, on the server, the Secret types Kubernetes and Helm keep for themselves', async () => {
    const typed = (name: string, type: string, data: Record<string, string>) =>
      plane.request('POST', '/api/v1/namespaces/tenant-globex/secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name },
        type,
        stringData: data,
      });
    for (const [name, type, data] of [
      ['release', 'helm.sh/release.v1', { release: 'H4sI' }],
      ['pull', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': '{"auths":{}}' }],
      ['cert', 'kubernetes.io/tls', { 'tls.crt': '', 'tls.key': '' }],
      ['custom', 'example.com/llm-key', { apiKey: 'sk-custom' }],
    ] as const) {
      expect((await typed(name, type, data)).status, type).toBe(201);
    }
    // Events arrive in order: once the last one is cached, the others were seen (or left out).
    await vi.waitFor(() => expect(resources.cached('Secret', 'custom', 'tenant-globex')).toBeDefined());
    for (const name of ['release', 'pull', 'cert']) {
      expect(resources.cached('Secret', name, 'tenant-globex'), name).toBeUndefined();
    }
    expect(
      resources
        .cachedList('Secret', 'tenant-globex')
        .map((item) => item.metadata.name)
        .sort(),
    ).toEqual(['custom', 'key']);
  });

  it('writes status through the status subresource, leaving spec alone', async () => {
    await resources.patchStatus('Tenant', 'globex', undefined, {
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Test',
          message: 'ok',
          lastTransitionTime: new Date().toISOString(),
        },
      ],
    });
    await vi.waitFor(async () =>
      expect((await resources.get('Tenant', 'globex'))?.status?.observedGeneration).toBe(1),
    );
    expect((await resources.get('Tenant', 'globex'))?.metadata.generation).toBe(1);
    await expect(resources.patchStatus('Tenant', 'nobody', undefined, {})).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
  });

  it('deletes, saying whether the object existed', async () => {
    expect(await resources.delete('CachePolicy', 'default', 'tenant-globex')).toBe(true);
    expect(await resources.delete('CachePolicy', 'default', 'tenant-globex')).toBe(false);
    await vi.waitFor(() =>
      expect(resources.cached('CachePolicy', 'default', 'tenant-globex')).toBeUndefined(),
    );
  });
});
