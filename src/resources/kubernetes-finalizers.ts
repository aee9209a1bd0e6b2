/**
 * The operator's finalizer on Tenants, CachePolicies and Connections. While the operator runs, it
 * adds its finalizer to each object it reconciles and, once a deleted object's records are gone
 * from the config store, releases it (applyFinalizers, with its own field manager).
 *
 * The way out when the operator is gone (uninstalled first, or never coming back): the operator's
 * finalizer on a Tenant, CachePolicy, Connection or ModelRoute being deleted holds that deletion,
 * and a CRD's, until an operator releases it. releaseFinalizers() removes that one finalizer from every object
 * already being deleted, and nothing else: records the operator published stay in the config store
 * (an operator started later rebuilds the store from the resources, without them), and a Tenant's
 * Secrets are not deleted (README, "Uninstall").
 */
import { KINDS, type ObjectRef, objectPath } from './kubernetes-api.ts';
import { CONTENT_TYPE_APPLY, isKubeStatus, type KubeTransport } from './kubernetes-transport.ts';
import { API_GROUP } from './types.ts';

const PLURALS = [
  { kind: 'Tenant', plural: 'tenants' },
  { kind: 'CachePolicy', plural: 'cachepolicies' },
  { kind: 'Connection', plural: 'connections' },
  { kind: 'ModelRoute', plural: 'modelroutes' },
] as const;

interface ListedObject {
  metadata: { name: string; namespace?: string; deletionTimestamp?: string; finalizers?: string[] };
}

export interface ReleasedObject {
  kind: (typeof PLURALS)[number]['kind'];
  name: string;
  namespace?: string;
}

function pathByPlural(plural: string, name: string, namespace?: string): string {
  const base = `/apis/${API_GROUP}/v1alpha1`;
  return namespace === undefined
    ? `${base}/${plural}/${encodeURIComponent(name)}`
    : `${base}/namespaces/${encodeURIComponent(namespace)}/${plural}/${encodeURIComponent(name)}`;
}

/**
 * Applies exactly `finalizers` as `fieldManager`'s set (an entry left out is removed; entries of
 * other managers stay). The resourceVersion is a precondition, so that an object deleted meanwhile
 * is not re-created. False when the object no longer exists.
 */
export async function applyFinalizers(
  transport: KubeTransport,
  fieldManager: string,
  ref: ObjectRef,
  finalizers: readonly string[],
  resourceVersion: string,
): Promise<boolean> {
  try {
    await transport.request({
      method: 'PATCH',
      path: objectPath(ref.kind, ref.name, ref.namespace),
      query: { fieldManager, force: true },
      body: {
        apiVersion: KINDS[ref.kind].apiVersion,
        kind: ref.kind,
        metadata: {
          name: ref.name,
          ...(ref.namespace === undefined ? {} : { namespace: ref.namespace }),
          resourceVersion,
          finalizers,
        },
      },
      contentType: CONTENT_TYPE_APPLY,
    });
    return true;
  } catch (error) {
    // With the object gone, the apply would be a create, which the resourceVersion precondition
    // (or the schema: no spec) refuses; tell that apart from a real refusal.
    if (isKubeStatus(error, 404)) return false;
    if (isKubeStatus(error, 422) || isKubeStatus(error, 409)) {
      const current = await transport.requestOptional({
        method: 'GET',
        path: objectPath(ref.kind, ref.name, ref.namespace),
      });
      if (current === undefined) return false;
    }
    throw error;
  }
}

/**
 * Removes `finalizer` from one object by a JSON patch that first tests the entry is still where it
 * was read: an object changed meanwhile is read again. False when the object is gone.
 */
async function removeFinalizer(
  transport: KubeTransport,
  plural: string,
  object: ListedObject,
  finalizer: string,
): Promise<boolean> {
  const path = pathByPlural(plural, object.metadata.name, object.metadata.namespace);
  let current: ListedObject | undefined = object;
  for (let attempt = 1; current !== undefined; attempt += 1) {
    const index = current.metadata.finalizers?.indexOf(finalizer) ?? -1;
    if (index < 0) return false;
    try {
      await transport.request({
        method: 'PATCH',
        path,
        body: [
          { op: 'test', path: `/metadata/finalizers/${index}`, value: finalizer },
          { op: 'remove', path: `/metadata/finalizers/${index}` },
        ],
        contentType: 'application/json-patch+json',
      });
      return true;
    } catch (error) {
      if (isKubeStatus(error, 404)) return false;
      // 422: the test failed (the list moved); 409: a conflicting write. Read it again.
      if (!(isKubeStatus(error, 422) || isKubeStatus(error, 409)) || attempt >= 5) throw error;
      current = await transport.requestOptional<ListedObject>({ method: 'GET', path });
    }
  }
  return false;
}

/** Releases the finalizer of every object of this API group being deleted; returns those released. */
export async function releaseFinalizers(
  transport: KubeTransport,
  finalizer: string,
): Promise<ReleasedObject[]> {
  const released: ReleasedObject[] = [];
  for (const { kind, plural } of PLURALS) {
    // Undefined when the CRD is gone already.
    const list = await transport.requestOptional<{ items?: ListedObject[] }>({
      method: 'GET',
      path: `/apis/${API_GROUP}/v1alpha1/${plural}`,
    });
    for (const object of list?.items ?? []) {
      const { name, namespace, deletionTimestamp, finalizers } = object.metadata;
      if (deletionTimestamp === undefined || !finalizers?.includes(finalizer)) continue;
      if (await removeFinalizer(transport, plural, object, finalizer)) {
        released.push({ kind, name, ...(namespace === undefined ? {} : { namespace }) });
      }
    }
  }
  return released;
}
