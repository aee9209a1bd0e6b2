/**
 * The CachePolicy controller: publishes the policy at workspace or tenant scope (the older of two
 * policies with one name at one scope wins) and sets Ready. Deletion removes the record before the
 * finalizer is released.
 */

import { tenantIdOfNamespace } from '../resources/desired-records.ts';
import type { ObjectRef } from '../resources/kubernetes-resources.ts';
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
import { cachePolicyOutcome, objectKey, servingTenantRecord } from './object-outcomes.ts';
import type { ReconcileOutcome } from './work-queue.ts';

export class CachePolicyController {
  readonly #context: ControllerContext;

  constructor(context: ControllerContext) {
    this.#context = context;
  }

  async reconcile(ref: ObjectRef): Promise<ReconcileOutcome | undefined> {
    const context = this.#context;
    const owner = `CachePolicy/${ref.namespace ?? ''}/${ref.name}`;
    const policy = await startReconcile(
      context,
      context.resources.cached('CachePolicy', ref.name, ref.namespace),
      { unpublish: async () => void (await unpublishRecords(context, owner)) },
    );
    if (!policy) return undefined;

    const namespace = policy.metadata.namespace;
    const tenant = servingTenantRecord(
      context.resources.cached('Tenant', tenantIdOfNamespace(namespace) ?? ''),
    );
    const outcome = cachePolicyOutcome(
      policy,
      tenant,
      context.resources.cachedList('CachePolicy', namespace),
    );
    if (await tenantNotYetPublished(context, tenant, outcome.records))
      return { requeueAfterMs: TENANT_WAIT_MS };
    try {
      await publishRecords(context, objectKey(policy), outcome.records);
    } catch (error) {
      await writeStatus(context, policy, { conditions: [storeUnavailableCondition(error)] });
      throw error;
    }
    const record = outcome.records[0]?.kind === 'cachePolicy' ? outcome.records[0].record : undefined;
    const scope = record?.workspaceId ? `workspace ${record.workspaceId}` : 'the whole tenant';
    const message = record
      ? `policy '${record.name}' published for ${scope} of tenant ${record.tenantId}`
      : '';
    await writeStatus(context, policy, { conditions: [readyCondition(outcome.problems, message)] });
  }
}
