/**
 * Which objects a resource change concerns: the work-queue keys the operator queues for it. Pure,
 * over the informer caches. An object is queued with its siblings (of two objects with one id, the
 * other may now win or lose); a Tenant with the objects of its namespace; a Secret with the Tenant
 * whose credentials it holds and the Connections that name it; a Connection, and the Secret of one,
 * with the namespace's ModelRoutes, whose `@slug/` targets resolve only while it is published.
 */
import { isDeepStrictEqual } from 'node:util';
import { tenantIdOfNamespace } from '../resources/desired-records.ts';
import type { ResourceChange } from '../resources/kubernetes-resources.ts';
import { CREDENTIAL_LABEL, tenantNamespace } from '../resources/types.ts';
import type { OperatorResources } from './controller-support.ts';
import { objectKey } from './object-outcomes.ts';

type NamespacedKind = 'CachePolicy' | 'Connection' | 'ModelRoute';

/** A change worth a reconcile: spec (generation), deletion or finalizers moved; status alone is not. */
export function isMeaningful(change: ResourceChange): boolean {
  if (change.type !== 'modified' || change.resource.kind === 'Secret') return true;
  const [before, after] = [change.previous.metadata, change.resource.metadata];
  return (
    before.generation !== after.generation ||
    before.deletionTimestamp !== after.deletionTimestamp ||
    !isDeepStrictEqual(before.finalizers ?? [], after.finalizers ?? [])
  );
}

/** The keys to queue for a change (none for a status-only one), each once. */
export function keysToReconcile(
  change: ResourceChange,
  resources: Pick<OperatorResources, 'cachedList'>,
): string[] {
  if (!isMeaningful(change)) return [];
  const keys = new Set<string>();
  const namespaceOf = (kind: NamespacedKind, namespace: string | undefined) => {
    for (const item of resources.cachedList(kind, namespace)) keys.add(objectKey(item));
  };
  const { resource } = change;
  const { name, namespace } = resource.metadata;
  switch (resource.kind) {
    case 'Tenant':
      keys.add(objectKey(resource));
      for (const kind of ['CachePolicy', 'Connection', 'ModelRoute'] as const) {
        namespaceOf(kind, tenantNamespace(name));
      }
      break;
    case 'CachePolicy':
    case 'Connection':
    case 'ModelRoute':
      keys.add(objectKey(resource));
      namespaceOf(resource.kind, namespace);
      if (resource.kind === 'Connection') namespaceOf('ModelRoute', namespace);
      break;
    case 'Secret': {
      const previousLabels = change.type === 'modified' ? change.previous.metadata.labels : undefined;
      const tenantId = tenantIdOfNamespace(namespace);
      if (tenantId && (resource.metadata.labels?.[CREDENTIAL_LABEL] || previousLabels?.[CREDENTIAL_LABEL])) {
        keys.add(`Tenant//${tenantId}`);
      }
      const connections = resources
        .cachedList('Connection', namespace)
        .filter((connection) => connection.spec.secretRef?.name === name);
      for (const connection of connections) keys.add(objectKey(connection));
      if (connections.length > 0) namespaceOf('ModelRoute', namespace);
      break;
    }
  }
  return [...keys];
}
