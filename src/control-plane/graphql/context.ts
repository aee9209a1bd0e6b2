/**
 * What every resolver gets, and the coded errors of DESIGN section 7.
 */
import { GraphQLError } from 'graphql';
import type { SigningKey } from '../../auth/ephemeral-token.ts';
import type { PatPermission } from '../../auth/permissions.ts';
import type { Logger } from '../../observability/logger.ts';
import type { ResourcesClient } from '../../resources/types.ts';
import type { ConfigView } from '../../stores/config-view.ts';
import type { ConfigKind, ConfigRecordMap, PatRecord } from '../../stores/records.ts';
import type { RuntimeStore } from '../../stores/types.ts';
import type { ProbeOptions } from '../credential-probe.ts';

export interface ControlPlaneServices {
  view: ConfigView;
  runtime: RuntimeStore;
  resources: ResourcesClient;
  /** Signs new ephemeral tokens; undefined: minting is disabled. */
  signingKey: SigningKey | undefined;
  /**
   * Resolves once the view the gateway uses holds a record for which `predicate` is true (pass
   * `(record) => record === undefined` for a delete); rejects on timeout.
   */
  awaitConfig<K extends ConfigKind>(
    kind: K,
    id: string,
    predicate: (record: ConfigRecordMap[K] | undefined) => boolean,
  ): Promise<void>;
  /**
   * Registry names of the providers the platform holds a key for (`<provider>/<model>` works on
   * the platform key), for providerAvailability.
   */
  platformProviders: readonly string[];
  /** The platform's own tenant (PLATFORM_TENANT): the only one whose model routes may be shared. */
  platformTenant?: string;
  /**
   * The keyed digest the reconcile step gives a Connection's secret material (ConnectionRecord
   * secretDigest), when this process holds the encryption key; lets upsertProviderCredential wait
   * for exactly its own secret. Without it, it waits for the digest to change.
   */
  secretDigest?: (material: Record<string, string>) => string;
  /** Endpoints of testProviderCredential's probes that settings may move (the Bedrock STS URL). */
  probeOptions?: ProbeOptions;
  log: Logger;
}

export interface ResolverContext {
  services: ControlPlaneServices;
  pat: PatRecord;
  tenantId: string;
}

export function validationError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'VALIDATION_ERROR' } });
}

/** Resource validation failures (local rules or the API server's 422) are the caller's to fix. */
export function asValidation(error: unknown): never {
  const messages = (error as { messages?: unknown }).messages;
  if (Array.isArray(messages)) throw validationError(messages.join('; '));
  // The Kubernetes API server refuses invalid objects with 422 and the CRD's own message.
  if ((error as { statusCode?: unknown }).statusCode === 422) throw validationError((error as Error).message);
  throw error;
}

export function forbidden(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'FORBIDDEN' } });
}

export function notFound(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'NOT_FOUND' } });
}

export function unauthenticated(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED' } });
}

export function requirePermission(context: ResolverContext, permission: PatPermission): void {
  if (!context.pat.permissions.includes(permission)) {
    throw forbidden(`this token lacks the '${permission}' permission`);
  }
}

/** A workspace of the caller's tenant, or a NOT_FOUND that says nothing about other tenants. */
export function requireWorkspace(context: ResolverContext, workspaceId: string): void {
  const tenant = context.services.view.tenant(context.tenantId);
  if (!tenant?.workspaces.some((workspace) => workspace.id === workspaceId)) {
    throw notFound(`no workspace '${workspaceId}' in your tenant`);
  }
}
