/**
 * The Tenant controller: creates the tenant's namespace (`tenant-<name>`) and its RoleBindings,
 * publishes the tenant record (with its workspaces) and the hashes of its credential Secrets, and
 * sets Ready. Deleting a Tenant removes its records and those of the CachePolicies, Connections and
 * ModelRoutes of its namespace, then the Secrets the control plane created there and the RoleBindings
 * (tenant-deletion.ts), before the finalizer is released. The namespace itself is left in place: it
 * holds the tenant's own objects, and deleting it is not something an operator should do on its
 * own; an Event names what is left.
 */

import { ageKey } from '../resources/desired-records.ts';
import type { ObjectRef } from '../resources/kubernetes-resources.ts';
import { type TenantResource, tenantNamespace } from '../resources/types.ts';
import {
  type ControllerContext,
  parseObjectKey,
  publishRecords,
  readyCondition,
  startReconcile,
  storeUnavailableCondition,
  unpublishRecords,
  writeStatus,
} from './controller-support.ts';
import { tenantSlug } from './desired-config.ts';
import { isDeleting, objectKey, tenantOutcome } from './object-outcomes.ts';
import { releaseTenantNamespace } from './tenant-deletion.ts';

export const TENANT_LABEL = 'gateway.service.io/tenant';
/** On the objects the operator alone makes (RoleBindings); never on a namespace, which Helm may own. */
const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'inference-gateway-operator' };

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export class TenantController {
  readonly #context: ControllerContext;
  /**
   * Tenants (name to uid) whose finalizer this replica released: the cache can show the object
   * with its finalizer a moment longer, and its namespace's cleanup and Event must not run twice.
   */
  readonly #released = new Map<string, string | undefined>();

  constructor(context: ControllerContext) {
    this.#context = context;
  }

  async reconcile(ref: ObjectRef): Promise<void> {
    const context = this.#context;
    const cached = context.resources.cached('Tenant', ref.name);
    if (!cached) this.#released.delete(ref.name);
    else if (
      isDeleting(cached) &&
      this.#released.has(ref.name) &&
      this.#released.get(ref.name) === cached.metadata.uid
    )
      return;
    const tenant = await startReconcile(context, cached, {
      unpublish: () => this.#unpublishTenant(ref.name),
      beforeRelease: (deleting) => releaseTenantNamespace(context, deleting),
      afterRelease: (deleting) => this.#released.set(ref.name, deleting.metadata.uid),
    });
    if (!tenant) return;

    const namespace = tenantNamespace(tenant.metadata.name);
    await this.#prepareNamespace(tenant, namespace);

    const owner = objectKey(tenant);
    const outcome = tenantOutcome(
      tenant,
      context.resources.cachedList('Secret', namespace),
      (kind, id) => this.#claimedByAnotherTenant(owner, kind, id),
      context.credentialPolicy,
    );
    try {
      await publishRecords(context, owner, outcome.records);
    } catch (error) {
      await writeStatus(context, tenant, { conditions: [storeUnavailableCondition(error)] });
      throw error;
    }
    await writeStatus(context, tenant, {
      conditions: [this.#ready(tenant, outcome)],
      slug: tenantSlug(tenant),
    });
  }

  /**
   * Creates the namespace and the RoleBindings that give the control plane (and the operator) their
   * rights in it, before anything is published: the control plane writes a new tenant's Secrets as
   * soon as the tenant's record appears. A failure leaves the Tenant Ready=False, saying what.
   */
  async #prepareNamespace(tenant: TenantResource, namespace: string): Promise<void> {
    const context = this.#context;
    const labels = { [TENANT_LABEL]: tenant.metadata.name };
    const steps = [
      {
        what: `namespace ${namespace}`,
        reason: 'NamespaceFailed',
        // Only the operator's own label: the namespace may be Helm's (the chart's day-one tenants),
        // and a label Helm also sets (app.kubernetes.io/managed-by) taken over by this apply would
        // make Helm's next server-side apply fail with a conflict.
        apply: () => context.resources.applyNamespace(namespace, labels),
      },
      ...context.tenantRoleBindings.map((binding) => ({
        what: `RoleBinding ${namespace}/${binding.clusterRole}`,
        reason: 'RoleBindingFailed',
        apply: () => context.resources.applyRoleBinding(namespace, binding, { ...MANAGED_BY, ...labels }),
      })),
    ];
    for (const step of steps) {
      try {
        context.assertLeading();
        await step.apply();
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        const message = `${step.what}: ${detail}`;
        const condition = { type: 'Ready', status: 'False', reason: step.reason, message } as const;
        await writeStatus(context, tenant, { conditions: [condition] });
        throw error;
      }
    }
  }

  /**
   * Ready=True only when everything the tenant holds is published: a key Secret left out (bad
   * hash, unknown workspace or grant, an id another Secret holds) makes it Ready=False with the
   * reason, so that `kubectl wait --for=condition=Ready` does not pass over a key that cannot work.
   * The valid keys are published all the same.
   */
  #ready(tenant: TenantResource, outcome: ReturnType<typeof tenantOutcome>) {
    const tenantProblems = outcome.problems.filter(
      (problem) => problem.kind === 'Tenant' && problem.reason !== 'DuplicateCredentialId',
    );
    if (tenantProblems.length > 0) return readyCondition(tenantProblems, '');
    const credentials = outcome.records.length - 1;
    const workspaces = tenant.spec.workspaces?.length ?? 0;
    const published = `tenant, ${plural(workspaces, 'workspace')} and ${plural(credentials, 'credential')} published`;
    const slugHolder = this.#olderTenantWithSlug(tenant);
    if (slugHolder !== undefined) {
      const message = `slug '${tenantSlug(tenant)}' is already Tenant ${slugHolder}'s; ${published} (organization(slug) finds the older tenant)`;
      return readyCondition([{ reason: 'SlugConflict', message }], '');
    }
    const credentialProblems = outcome.problems;
    if (credentialProblems.length === 0) {
      return readyCondition([], `namespace ${tenantNamespace(tenant.metadata.name)} ready; ${published}`);
    }
    const details = credentialProblems.map((problem) =>
      problem.kind === 'Secret' ? `Secret ${problem.name}: ${problem.message}` : problem.message,
    );
    const message = `${plural(credentialProblems.length, 'key Secret')} could not be published (${details.join('; ')}); ${published}`;
    const reason =
      credentialProblems.length === 1
        ? (credentialProblems[0]?.reason ?? 'InvalidCredential')
        : 'InvalidCredentials';
    return readyCondition([{ reason, message }], '');
  }

  /** The name of an older live Tenant whose slug in force is this one's, if any. */
  #olderTenantWithSlug(tenant: TenantResource): string | undefined {
    const slug = tenantSlug(tenant);
    const own = ageKey(tenant);
    return this.#context.resources
      .cachedList('Tenant')
      .find(
        (other) =>
          other.metadata.name !== tenant.metadata.name &&
          !isDeleting(other) &&
          tenantSlug(other) === slug &&
          ageKey(other) < own,
      )?.metadata.name;
  }

  /** A credential id held by another Tenant that still exists keeps its owner. */
  #claimedByAnotherTenant(
    owner: string,
    kind: Parameters<ControllerContext['published']['ownerOf']>[0],
    id: string,
  ): boolean {
    const holder = this.#context.published.ownerOf(kind, id);
    if (holder === undefined || holder === owner) return false;
    const ref = parseObjectKey(holder);
    const other = this.#context.resources.cached('Tenant', ref.name);
    return other !== undefined && !isDeleting(other);
  }

  /** Removes the records of the namespace's routes, CachePolicies and Connections, then the tenant's own. */
  async #unpublishTenant(name: string): Promise<void> {
    const context = this.#context;
    const namespace = tenantNamespace(name);
    const dependants = [
      ...context.published.ownersWithPrefix(`ModelRoute/${namespace}/`),
      ...context.published.ownersWithPrefix(`Connection/${namespace}/`),
      ...context.published.ownersWithPrefix(`CachePolicy/${namespace}/`),
    ];
    for (const owner of dependants) await unpublishRecords(context, owner);
    await unpublishRecords(context, `Tenant//${name}`);
  }
}
