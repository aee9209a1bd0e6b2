/** The operator role's settings (OPERATOR_* variables). Part of Settings (settings.ts). */
import { SettingsError } from './settings-error.ts';
import { readTenantRoleBindings, type TenantRoleBinding } from './tenant-role-bindings.ts';

/** The operator role's settings (OPERATOR_* variables). */
export interface OperatorSettings {
  /** Namespace of the leader-election Lease (OPERATOR_NAMESPACE, else POD_NAMESPACE; else the in-cluster namespace). */
  namespace: string | undefined;
  /** Name of the Lease (OPERATOR_LEASE_NAME). */
  leaseName: string;
  /** This replica's identity in the Lease (OPERATOR_IDENTITY, else POD_NAME; else hostname + random). */
  identity: string | undefined;
  /** Full rebuild and requeue interval (OPERATOR_RESYNC_SECONDS). */
  resyncSeconds: number;
  /** How often the leader checks the config store's epoch marker (OPERATOR_EPOCH_CHECK_SECONDS). */
  epochCheckSeconds: number;
  /** Port of /healthz and /readyz (OPERATOR_PORT; 0 disables). */
  port: number;
  /** RoleBindings made in each tenant namespace (OPERATOR_TENANT_ROLE_BINDINGS, tenant-role-bindings.ts). */
  tenantRoleBindings: readonly TenantRoleBinding[];
}

type Env = Readonly<Record<string, string | undefined>>;
type ReadInt = (env: Env, name: string, fallback: number, min: number, max: number) => number;

export function readOperatorSettings(env: Env, readInt: ReadInt): OperatorSettings {
  return Object.freeze({
    namespace: env.OPERATOR_NAMESPACE?.trim() || env.POD_NAMESPACE?.trim() || undefined,
    leaseName: env.OPERATOR_LEASE_NAME?.trim() || 'inference-gateway-operator',
    identity: env.OPERATOR_IDENTITY?.trim() || env.POD_NAME?.trim() || undefined,
    resyncSeconds: readInt(env, 'OPERATOR_RESYNC_SECONDS', 300, 10, 86_400),
    epochCheckSeconds: readInt(env, 'OPERATOR_EPOCH_CHECK_SECONDS', 5, 1, 3_600),
    port: readInt(env, 'OPERATOR_PORT', 8082, 0, 65535),
    tenantRoleBindings: readTenantRoleBindings(env.OPERATOR_TENANT_ROLE_BINDINGS, (message) => {
      throw new SettingsError(message);
    }),
  });
}
