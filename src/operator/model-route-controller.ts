/**
 * The ModelRoute controller: publishes the route at workspace or tenant scope (the older of two
 * routes of one model at one scope wins) once its targets resolve (known providers, published
 * Connections that serve its scope; `shared` only in the platform tenant), and sets Ready.
 * Deletion removes the record before the finalizer is released. Connections and their Secrets
 * changing requeue the namespace's routes (operator.ts).
 */

import { tenantIdOfNamespace } from '../resources/desired-records.ts';
import type { ObjectRef } from '../resources/kubernetes-resources.ts';
import type { ConnectionResource } from '../resources/types.ts';
import {
  type ControllerContext,
  publishRecords,
  readyCondition,
  startReconcile,
  storeUnavailableCondition,
  TENANT_WAIT_MS,
  tenantNotYetPublished,
  unpublishRecords,
  writeStatus,
} from './controller-support.ts';
import {
  modelRouteOutcome,
  objectKey,
  publishedConnectionLookup,
  servingTenantRecord,
} from './object-outcomes.ts';
import type { ReconcileOutcome } from './work-queue.ts';

export class ModelRouteController {
  readonly #context: ControllerContext;

  constructor(context: ControllerContext) {
    this.#context = context;
  }

  async reconcile(ref: ObjectRef): Promise<ReconcileOutcome | undefined> {
    const context = this.#context;
    const owner = `ModelRoute/${ref.namespace ?? ''}/${ref.name}`;
    const route = await startReconcile(
      context,
      context.resources.cached('ModelRoute', ref.name, ref.namespace),
      { unpublish: async () => void (await unpublishRecords(context, owner)) },
    );
    if (!route) return undefined;

    const namespace = route.metadata.namespace;
    const { resources } = context;
    const tenant = servingTenantRecord(resources.cached('Tenant', tenantIdOfNamespace(namespace) ?? ''));
    const secretOf = (connection: ConnectionResource) =>
      resources.cached('Secret', connection.spec.secretRef.name, connection.metadata.namespace);
    const connectionOf =
      tenant === undefined
        ? () => undefined
        : publishedConnectionLookup(tenant, resources.cachedList('Connection', namespace), secretOf);
    const outcome = modelRouteOutcome(
      route,
      tenant,
      resources.cachedList('ModelRoute', namespace),
      connectionOf,
      context.credentialPolicy,
    );
    if (await tenantNotYetPublished(context, tenant, outcome.records))
      return { requeueAfterMs: TENANT_WAIT_MS };
    try {
      await publishRecords(context, objectKey(route), outcome.records);
    } catch (error) {
      await writeStatus(context, route, { conditions: [storeUnavailableCondition(error)] });
      throw error;
    }
    const record = outcome.records[0]?.kind === 'modelRoute' ? outcome.records[0].record : undefined;
    const scope = record?.workspaceId ? `workspace ${record.workspaceId}` : 'the whole tenant';
    const shared = record?.shared ? ', and shared with every tenant without its own' : '';
    const message = record
      ? `route '${record.model}' (${record.targets.length} target${record.targets.length === 1 ? '' : 's'}) published for ${scope} of tenant ${record.tenantId}${shared}`
      : '';
    await writeStatus(context, route, { conditions: [readyCondition(outcome.problems, message)] });
  }
}
