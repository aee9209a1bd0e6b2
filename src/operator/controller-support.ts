/**
 * What the three controllers share: the context they run in, finalizers, publishing an object's
 * records to the config store, and writing its status (with an event when Ready changes).
 *
 * Every controller does the same four steps (STYLE rule 9): read the object from the cache,
 * compute its desired records with pure functions (object-outcomes.ts), apply them, write status.
 */

import type { NamespaceRoleBinding, SecretMetadata } from '../resources/kubernetes-namespace-access.ts';
import type {
  CustomResourceKind,
  KubernetesEventInput,
  ObjectRef,
  ResourceChange,
} from '../resources/kubernetes-resources.ts';
import type { AnyResource, ResourceByKind, ResourceKind } from '../resources/types.ts';
import { API_GROUP } from '../resources/types.ts';
import type { TenantRecord } from '../stores/records.ts';
import type { ConfigStore } from '../stores/types.ts';
import { buildConditions, type ConditionInput, findCondition, statusUpToDate } from './conditions.ts';
import { recordsEqual } from './config-sync.ts';
import type { CredentialPolicy, SecretSealing } from './desired-config.ts';
import type { OwnedRecord } from './object-outcomes.ts';
import { isDeleting } from './object-outcomes.ts';
import type { PublishedRecords } from './published-records.ts';

export const FINALIZER = `${API_GROUP}/finalizer`;

/** The part of the Kubernetes resources client the operator uses (KubernetesResources in production). */
export interface OperatorResources {
  start(): void;
  whenSynced(): Promise<void>;
  readonly synced: boolean;
  cached<K extends ResourceKind>(kind: K, name: string, namespace?: string): ResourceByKind[K] | undefined;
  cachedList<K extends ResourceKind>(kind: K, namespace?: string): ResourceByKind[K][];
  onChange(listener: (change: ResourceChange) => void): () => void;
  applyFinalizers(ref: ObjectRef, finalizers: readonly string[], resourceVersion: string): Promise<boolean>;
  patchStatus(
    kind: CustomResourceKind,
    name: string,
    namespace: string | undefined,
    status: object,
  ): Promise<void>;
  applyNamespace(name: string, labels: Record<string, string>): Promise<void>;
  applyRoleBinding(
    namespace: string,
    binding: NamespaceRoleBinding,
    labels: Record<string, string>,
  ): Promise<void>;
  deleteRoleBinding(namespace: string, name: string): Promise<boolean>;
  listSecretMetadata(namespace: string): Promise<SecretMetadata[]>;
  secretType(name: string, namespace: string): Promise<string | undefined>;
  delete(kind: ResourceKind, name: string, namespace?: string): Promise<boolean>;
  recordEvent(regarding: AnyResource, event: KubernetesEventInput): Promise<void>;
  close(): Promise<void>;
}

export interface OperatorLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
  debug?(details: object, message: string): void;
}

export interface ControllerContext {
  resources: OperatorResources;
  store: ConfigStore;
  published: PublishedRecords;
  sealing: SecretSealing;
  /** Which tenant may hold an admin PAT. */
  credentialPolicy: CredentialPolicy;
  /** What the operator binds in each tenant namespace (OPERATOR_TENANT_ROLE_BINDINGS). */
  tenantRoleBindings: readonly NamespaceRoleBinding[];
  log: OperatorLog;
  /** Throws NotLeaderError once this process may no longer write. */
  assertLeading(): void;
  now(): Date;
}

/** Thrown when leadership ended during a reconcile: the reconcile stops without writing more. */
export class NotLeaderError extends Error {
  constructor() {
    super('not the leader any more');
    this.name = 'NotLeaderError';
  }
}

export type CustomResource = ResourceByKind[CustomResourceKind];

export function refOf(resource: CustomResource): ObjectRef {
  const { name, namespace } = resource.metadata;
  return { kind: resource.kind, name, ...(namespace === undefined ? {} : { namespace }) };
}

export function parseObjectKey(key: string): ObjectRef {
  const [kind, namespace, ...rest] = key.split('/');
  return { kind: kind as CustomResourceKind, name: rest.join('/'), ...(namespace ? { namespace } : {}) };
}

export function hasFinalizer(resource: CustomResource): boolean {
  return resource.metadata.finalizers?.includes(FINALIZER) ?? false;
}

/** Adds the finalizer (only this manager's entry); false when the object is gone. */
export async function addFinalizer(context: ControllerContext, resource: CustomResource): Promise<boolean> {
  context.assertLeading();
  return context.resources.applyFinalizers(
    refOf(resource),
    [FINALIZER],
    resource.metadata.resourceVersion ?? '',
  );
}

/** Releases the finalizer: the object's deletion can complete. */
export async function removeFinalizer(context: ControllerContext, resource: CustomResource): Promise<void> {
  context.assertLeading();
  await context.resources.applyFinalizers(refOf(resource), [], resource.metadata.resourceVersion ?? '');
}

/** What a controller does when its object is gone or being deleted (see startReconcile). */
export interface ObjectRelease<T extends CustomResource> {
  /** Takes back what the object published: when it is gone, and before its finalizer goes. */
  unpublish(): Promise<void>;
  /** More to clean up before the finalizer goes (the Tenant's namespace). */
  beforeRelease?(object: T): Promise<void>;
  /** The finalizer is released. */
  afterRelease?(object: T): void;
}

/**
 * The prelude of every controller's reconcile: an object that is gone has its records
 * unpublished; one being deleted is cleaned up and its finalizer released; one without the
 * finalizer gets it before anything is published, so that its deletion waits for the cleanup.
 * Returns the object to reconcile, or undefined when there is nothing more to do.
 */
export async function startReconcile<T extends CustomResource>(
  context: ControllerContext,
  object: T | undefined,
  release: ObjectRelease<T>,
): Promise<T | undefined> {
  if (!object) {
    await release.unpublish();
    return undefined;
  }
  if (isDeleting(object)) {
    if (!hasFinalizer(object)) return undefined;
    await release.unpublish();
    await release.beforeRelease?.(object);
    await removeFinalizer(context, object);
    release.afterRelease?.(object);
    return undefined;
  }
  if (!hasFinalizer(object) && !(await addFinalizer(context, object))) return undefined;
  return object;
}

const slotOf = (kind: string, id: string) => `${kind}\u0000${id}`;

/**
 * Makes the store hold exactly `records` for `owner`: claims and writes what is new or changed
 * (in the given order, tenants first), then deletes what the owner published before and no longer
 * wants (dependants first). Returns how many records were written or deleted.
 */
export async function publishRecords(
  context: ControllerContext,
  owner: string,
  records: readonly OwnedRecord[],
): Promise<number> {
  const { store, published } = context;
  let changes = 0;
  const stored = await Promise.all(records.map(({ kind, id }) => store.get(kind, id)));
  for (const [index, entry] of records.entries()) {
    context.assertLeading();
    // Claimed before the write: a concurrent release by a previous owner then leaves it alone.
    published.claim(owner, entry.kind, entry.id);
    const current = stored[index];
    if (current !== undefined && recordsEqual(entry.kind, current, entry.record)) continue;
    await store.put(entry.kind, entry.id, entry.record as never);
    changes += 1;
  }
  const wanted = new Set(records.map(({ kind, id }) => slotOf(kind, id)));
  for (const slot of published.owned(owner)) {
    if (wanted.has(slotOf(slot.kind, slot.id))) continue;
    context.assertLeading();
    if (published.release(owner, slot.kind, slot.id)) {
      await store.delete(slot.kind, slot.id);
      changes += 1;
    }
  }
  return changes;
}

/** How long a CachePolicy or Connection waits for its tenant's record before trying again. */
export const TENANT_WAIT_MS = 250;

/**
 * Whether the object's records point at a tenant the store does not hold yet (its Tenant's
 * reconcile has not run): publishing now would show gateways a dangling tenantId, so the object
 * waits instead.
 */
export async function tenantNotYetPublished(
  context: ControllerContext,
  tenant: TenantRecord | undefined,
  records: readonly OwnedRecord[],
): Promise<boolean> {
  if (!tenant || records.length === 0) return false;
  return (await context.store.get('tenant', tenant.id)) === undefined;
}

/** Deletes every record the owner published. */
export async function unpublishRecords(context: ControllerContext, owner: string): Promise<number> {
  return publishRecords(context, owner, []);
}

export interface StatusInput {
  conditions: ConditionInput[];
  keyHint?: string;
  /** A Tenant's slug in force (spec.slug, else its name). */
  slug?: string;
}

/**
 * Writes the operator's part of the status when it differs from what the object shows, and
 * records an event when the Ready condition's status or reason changes.
 */
export async function writeStatus(
  context: ControllerContext,
  resource: CustomResource,
  input: StatusInput,
): Promise<void> {
  const current = resource.status as Parameters<typeof statusUpToDate>[0];
  const generation = resource.metadata.generation ?? 0;
  const conditions = buildConditions(
    current?.conditions,
    input.conditions,
    generation,
    context
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z'),
  );
  const desired = {
    observedGeneration: generation,
    conditions,
    ...(input.keyHint ? { keyHint: input.keyHint } : {}),
    ...(input.slug ? { slug: input.slug } : {}),
  };
  if (statusUpToDate(current, desired)) return;
  context.assertLeading();
  const { kind, metadata } = resource;
  await context.resources.patchStatus(kind, metadata.name, metadata.namespace, desired);
  const ready = conditions.find((condition) => condition.type === 'Ready');
  const before = findCondition(current, 'Ready');
  if (ready && (before?.status !== ready.status || before?.reason !== ready.reason)) {
    const event: KubernetesEventInput = {
      type: ready.status === 'True' ? 'Normal' : 'Warning',
      reason: ready.reason,
      note: ready.message,
      action: 'Reconcile',
    };
    try {
      await context.resources.recordEvent(resource, event);
    } catch (error) {
      context.log.warn(
        { kind, name: metadata.name, namespace: metadata.namespace, err: error },
        'could not record an event',
      );
    }
  }
}

/** The Ready condition for an outcome: True with `publishedMessage`, or False with the first problem. */
export function readyCondition(
  problems: readonly { reason: string; message: string }[],
  publishedMessage: string,
): ConditionInput {
  const problem = problems[0];
  return problem
    ? { type: 'Ready', status: 'False', reason: problem.reason, message: problem.message }
    : { type: 'Ready', status: 'True', reason: 'Published', message: publishedMessage };
}

/** Ready=False for a config store that could not be written. */
export function storeUnavailableCondition(error: unknown): ConditionInput {
  const detail = error instanceof Error ? error.message : String(error);
  return {
    type: 'Ready',
    status: 'False',
    reason: 'ConfigStoreUnavailable',
    message: `the config store could not be written: ${detail}`.slice(0, 1000),
  };
}
