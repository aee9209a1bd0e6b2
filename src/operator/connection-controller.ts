/**
 * The Connection controller: resolves the Connection's Secret, publishes the connection with its
 * secret material sealed (AES-256-GCM, see auth/secret-box.ts), and sets SecretResolved, Ready and
 * status.keyHint (the only secret-derived value shown anywhere). Deletion removes the record before
 * the finalizer is released.
 */
import type { ObjectRef } from '../resources/kubernetes-resources.ts';
import type { ConnectionResource } from '../resources/types.ts';
import type { ConditionInput } from './conditions.ts';
import {
  addFinalizer,
  type ControllerContext,
  hasFinalizer,
  publishRecords,
  readyCondition,
  removeFinalizer,
  storeUnavailableCondition,
  TENANT_WAIT_MS,
  tenantNotYetPublished,
  unpublishRecords,
  writeStatus,
} from './controller-support.ts';
import { connectionKeyHint, tenantIdOfNamespace } from './desired-config.ts';
import {
  connectionOutcome,
  isDeleting,
  objectKey,
  resolveConnectionSecret,
  servingTenantRecord,
} from './object-outcomes.ts';
import type { ReconcileOutcome } from './work-queue.ts';

export class ConnectionController {
  readonly #context: ControllerContext;

  constructor(context: ControllerContext) {
    this.#context = context;
  }

  async reconcile(ref: ObjectRef): Promise<ReconcileOutcome | undefined> {
    const context = this.#context;
    const owner = `Connection/${ref.namespace ?? ''}/${ref.name}`;
    const connection = context.resources.cached('Connection', ref.name, ref.namespace);
    if (!connection) {
      await unpublishRecords(context, owner);
      return undefined;
    }
    if (isDeleting(connection)) {
      if (!hasFinalizer(connection)) return undefined;
      await unpublishRecords(context, owner);
      await removeFinalizer(context, connection);
      return undefined;
    }
    if (!hasFinalizer(connection) && !(await addFinalizer(context, connection))) return undefined;

    const namespace = connection.metadata.namespace;
    const tenantId = tenantIdOfNamespace(namespace);
    const tenant = servingTenantRecord(context.resources.cached('Tenant', tenantId ?? ''));
    const secretOf = (item: ConnectionResource) =>
      context.resources.cached('Secret', item.spec.secretRef.name, item.metadata.namespace);
    const outcome = connectionOutcome(
      connection,
      tenant,
      secretOf,
      context.resources.cachedList('Connection', namespace),
      context.sealing,
    );
    const { condition: secretResolved, keyHint } = this.#secretResolved(connection, tenantId !== undefined);
    if (await tenantNotYetPublished(context, tenant, outcome.records))
      return { requeueAfterMs: TENANT_WAIT_MS };
    try {
      await publishRecords(context, objectKey(connection), outcome.records);
    } catch (error) {
      await writeStatus(context, connection, {
        conditions: [storeUnavailableCondition(error), secretResolved],
        keyHint,
      });
      throw error;
    }
    const record = outcome.records[0]?.kind === 'connection' ? outcome.records[0].record : undefined;
    const message = record ? `published as @${record.slug} for tenant ${record.tenantId}` : '';
    await writeStatus(context, connection, {
      conditions: [readyCondition(outcome.problems, message), secretResolved],
      keyHint,
    });
  }

  #secretResolved(
    connection: ConnectionResource,
    inTenantNamespace: boolean,
  ): { condition: ConditionInput; keyHint?: string } {
    const type = 'SecretResolved';
    if (!inTenantNamespace) {
      const message = `namespace '${connection.metadata.namespace}' is not a tenant namespace; the Secret is not read`;
      return { condition: { type, status: 'Unknown', reason: 'NotTenantNamespace', message } };
    }
    const secret = this.#context.resources.cached(
      'Secret',
      connection.spec.secretRef.name,
      connection.metadata.namespace,
    );
    const resolution = resolveConnectionSecret(connection, secret);
    if (!resolution.resolved) {
      return { condition: { type, status: 'False', reason: resolution.reason, message: resolution.message } };
    }
    const keyHint = connectionKeyHint(resolution.material) || undefined;
    const message = `Secret '${connection.spec.secretRef.name}' holds the keys provider ${connection.spec.provider} needs`;
    return { condition: { type, status: 'True', reason: 'Resolved', message }, keyHint };
  }
}
