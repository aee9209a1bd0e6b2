/**
 * What a Tenant's deletion does to its namespace, once its records (and those of its namespace's
 * CachePolicies, Connections and ModelRoutes) are gone from the config store and before its
 * finalizer is released:
 *
 * - deleted: the Secrets the control plane created for the tenant (labelled
 *   gateway.service.io/created-by=controlplane: the credentials it issued and the keys of the
 *   Connections it wrote), and the RoleBindings the operator made there;
 * - left in place: the namespace and everything else in it (Secrets someone else made, the
 *   CachePolicies, Connections and ModelRoutes, the tenant's own objects, which may be in git).
 *
 * An Event on the Tenant (in namespace `default`, where the Events of cluster-scoped objects
 * live) names both lists.
 */
import { isKubeStatus } from '../resources/kubernetes-transport.ts';
import {
  CREATED_BY_CONTROL_PLANE,
  CREATED_BY_LABEL,
  type TenantResource,
  tenantNamespace,
} from '../resources/types.ts';
import type { ControllerContext } from './controller-support.ts';
import { isDeleting } from './object-outcomes.ts';

/** How many names an Event lists of one kind (its note holds at most 1 kB). */
const LISTED_NAMES = 8;

function describe(noun: string, names: readonly string[]): string {
  const shown = [...names].sort().slice(0, LISTED_NAMES).join(', ');
  const more = names.length > LISTED_NAMES ? ` and ${names.length - LISTED_NAMES} more` : '';
  return `${names.length} ${noun}${names.length === 1 ? '' : 's'} (${shown}${more})`;
}

/**
 * Runs a delete: `deleted`, `absent` (nothing to delete), or `refused` when the API server said
 * 403: that object is reported, not retried for ever (the Tenant's deletion must not hang on it).
 */
async function deleteUnlessForbidden(
  remove: () => Promise<boolean>,
): Promise<'deleted' | 'absent' | 'refused'> {
  try {
    return (await remove()) ? 'deleted' : 'absent';
  } catch (error) {
    if (isKubeStatus(error, 403)) return 'refused';
    throw error;
  }
}

export async function releaseTenantNamespace(
  context: ControllerContext,
  tenant: TenantResource,
): Promise<void> {
  const namespace = tenantNamespace(tenant.metadata.name);
  const deletedSecrets: string[] = [];
  const deletedBindings: string[] = [];
  const kept: string[] = [];
  const refused: string[] = [];
  for (const secret of await context.resources.listSecretMetadata(namespace)) {
    if (secret.labels[CREATED_BY_LABEL] !== CREATED_BY_CONTROL_PLANE) {
      kept.push(secret.name);
      continue;
    }
    context.assertLeading();
    const result = await deleteUnlessForbidden(() =>
      context.resources.delete('Secret', secret.name, namespace),
    );
    if (result === 'deleted') deletedSecrets.push(secret.name);
    else if (result === 'refused') refused.push(`Secret ${secret.name}`);
  }
  for (const { clusterRole } of context.tenantRoleBindings) {
    context.assertLeading();
    const result = await deleteUnlessForbidden(() =>
      context.resources.deleteRoleBinding(namespace, clusterRole),
    );
    if (result === 'deleted') deletedBindings.push(clusterRole);
    else if (result === 'refused') refused.push(`RoleBinding ${clusterRole}`);
  }

  const live = (kind: 'Connection' | 'CachePolicy' | 'ModelRoute') =>
    context.resources
      .cachedList(kind, namespace)
      .filter((item) => !isDeleting(item))
      .map((item) => item.metadata.name);
  const connections = live('Connection');
  const policies = live('CachePolicy');
  const routes = live('ModelRoute');
  const left = [
    `namespace ${namespace}`,
    ...(kept.length > 0 ? [describe('Secret', kept)] : []),
    ...(connections.length > 0 ? [describe('Connection', connections)] : []),
    ...(policies.length > 0 ? [describe('CachePolicy', policies)] : []),
    ...(routes.length > 0 ? [describe('ModelRoute', routes)] : []),
  ];
  const note = [
    `Tenant ${tenant.metadata.name} deleted: its records are gone from the config store`,
    deletedSecrets.length > 0
      ? `deleted ${describe('Secret', deletedSecrets)} the control plane created`
      : '',
    deletedBindings.length > 0 ? `deleted ${describe('RoleBinding', deletedBindings)}` : '',
    refused.length > 0 ? `not allowed to delete ${refused.join(', ')}` : '',
    `left in place: ${left.join('; ')}`,
  ]
    .filter((part) => part !== '')
    .join('; ');
  context.log.info(
    { tenant: tenant.metadata.name, deletedSecrets, deletedBindings, refused, left },
    'tenant deleted',
  );
  try {
    await context.resources.recordEvent(tenant, {
      type: refused.length > 0 ? 'Warning' : 'Normal',
      reason: 'TenantDeleted',
      note,
      action: 'Delete',
    });
  } catch (error) {
    context.log.warn({ tenant: tenant.metadata.name, err: error }, 'could not record the deletion event');
  }
}
