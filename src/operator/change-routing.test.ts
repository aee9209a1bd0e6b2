import { describe, expect, it } from 'vitest';
import type { ResourceChange } from '../resources/kubernetes-resources.ts';
import {
  type AnyResource,
  API_VERSION,
  type ConnectionResource,
  CREDENTIAL_LABEL,
  type ModelRouteResource,
  type ResourceByKind,
  type ResourceKind,
} from '../resources/types.ts';
import { keysToReconcile } from './change-routing.ts';

const ns = 'tenant-acme';
const connection = (name: string, secretName: string): ConnectionResource => ({
  apiVersion: API_VERSION,
  kind: 'Connection',
  metadata: { name, namespace: ns, generation: 1 },
  spec: { provider: 'openai', secretRef: { name: secretName } },
});
const route = (name: string, namespace = ns): ModelRouteResource => ({
  apiVersion: API_VERSION,
  kind: 'ModelRoute',
  metadata: { name, namespace, generation: 1 },
  spec: { targets: [{ model: 'openai/a' }] },
});
const cache: Partial<Record<ResourceKind, AnyResource[]>> = {
  Connection: [connection('azure', 'azure-key'), connection('other', 'other-key')],
  ModelRoute: [route('chat'), route('fast'), route('elsewhere', 'tenant-other')],
  CachePolicy: [],
};
const resources = {
  cachedList<K extends ResourceKind>(kind: K, namespace?: string): ResourceByKind[K][] {
    return (cache[kind] ?? []).filter(
      (item) => namespace === undefined || item.metadata.namespace === namespace,
    ) as ResourceByKind[K][];
  },
};
const added = (resource: AnyResource): ResourceChange => ({ type: 'added', resource });

describe('keysToReconcile', () => {
  it("queues a route with its namespace's routes (of one model, the other may now win)", () => {
    expect(keysToReconcile(added(route('chat')), resources).sort()).toEqual([
      'ModelRoute/tenant-acme/chat',
      'ModelRoute/tenant-acme/fast',
    ]);
  });

  it("queues a Connection's namespace routes, whose @slug/ targets may now resolve or not", () => {
    expect(keysToReconcile(added(connection('azure', 'azure-key')), resources)).toEqual(
      expect.arrayContaining(['Connection/tenant-acme/azure', 'ModelRoute/tenant-acme/chat']),
    );
  });

  it("queues the routes when a Connection's Secret changes, and none for another Secret", () => {
    const secret = (name: string, labels?: Record<string, string>): AnyResource => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
    });
    expect(keysToReconcile(added(secret('azure-key')), resources).sort()).toEqual([
      'Connection/tenant-acme/azure',
      'ModelRoute/tenant-acme/chat',
      'ModelRoute/tenant-acme/fast',
    ]);
    expect(keysToReconcile(added(secret('k', { [CREDENTIAL_LABEL]: 'api-key' })), resources)).toEqual([
      'Tenant//acme',
    ]);
  });

  it("queues a Tenant with its namespace's objects, routes included", () => {
    const tenant: AnyResource = {
      apiVersion: API_VERSION,
      kind: 'Tenant',
      metadata: { name: 'acme', generation: 1 },
      spec: { displayName: 'Acme', workspaces: [] },
    };
    expect(keysToReconcile(added(tenant), resources)).toEqual([
      'Tenant//acme',
      'Connection/tenant-acme/azure',
      'Connection/tenant-acme/other',
      'ModelRoute/tenant-acme/chat',
      'ModelRoute/tenant-acme/fast',
    ]);
  });

  it('queues nothing for a change of status alone', () => {
    const before = route('chat');
    const after = { ...before, status: { observedGeneration: 1 } };
    expect(keysToReconcile({ type: 'modified', resource: after, previous: before }, resources)).toEqual([]);
  });
});
