/**
 * The Connection controller: resolves the Connection's Secret, publishes the connection with its
 * secret material sealed (AES-256-GCM, see auth/secret-box.ts), and sets SecretResolved, Ready and
 * status.keyHint (the only secret-derived value shown anywhere). Deletion removes the record before
 * the finalizer is released.
 */

import { connectionKeyHint } from '../auth/credential-hash.ts';
import { tenantIdOfNamespace } from '../resources/desired-records.ts';
import { IGNORED_SECRET_TYPES } from '../resources/kubernetes-api.ts';
import type { ObjectRef } from '../resources/kubernetes-resources.ts';
import type { ConnectionResource } from '../resources/types.ts';
import type { ConditionInput } from './conditions.ts';
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
  connectionOutcome,
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
    const connection = await startReconcile(
      context,
      context.resources.cached('Connection', ref.name, ref.namespace),
      { unpublish: async () => void (await unpublishRecords(context, owner)) },
    );
    if (!connection) return undefined;

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
    const unreadable = tenantId === undefined ? undefined : await this.#unreadableSecret(connection);
    if (unreadable !== undefined) {
      // Not "not found": the Secret exists, with a type the operator never reads.
      outcome.problems = outcome.problems.map((problem) =>
        problem.reason === 'SecretNotFound' ? { ...problem, ...unreadable } : problem,
      );
    }
    const { condition: secretResolved, keyHint } =
      unreadable === undefined
        ? this.#secretResolved(connection, tenantId !== undefined)
        : {
            condition: { type: 'SecretResolved', status: 'False' as const, ...unreadable },
            keyHint: undefined,
          };
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

  /**
   * When the Connection's Secret is not in the cache, whether it exists with one of the types the
   * informer leaves out (IGNORED_SECRET_TYPES, such as kubernetes.io/tls): the reason to show
   * then. One API call, made only for a Secret the cache does not hold.
   */
  async #unreadableSecret(
    connection: ConnectionResource,
  ): Promise<{ reason: string; message: string } | undefined> {
    const { name } = connection.spec.secretRef;
    const namespace = connection.metadata.namespace ?? '';
    if (this.#context.resources.cached('Secret', name, namespace) !== undefined) return undefined;
    let type: string | undefined;
    try {
      type = await this.#context.resources.secretType(name, namespace);
    } catch (error) {
      this.#context.log.debug?.({ secret: `${namespace}/${name}`, err: error }, 'secret type lookup failed');
      return undefined;
    }
    if (type === undefined || !(IGNORED_SECRET_TYPES as readonly string[]).includes(type)) return undefined;
    return {
      reason: 'SecretTypeNotSupported',
      message: `Secret '${name}' has type ${type}, which the operator never reads (a type Kubernetes or Helm keeps for itself); put the keys in a Secret of type Opaque`,
    };
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
