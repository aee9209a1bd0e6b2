/**
 * OPERATOR_TENANT_ROLE_BINDINGS: what the operator grants in each tenant namespace it creates, so
 * that no ServiceAccount needs Secrets of every namespace (the control plane faces the internet).
 * `<clusterRole>=<namespace>/<serviceAccount>`, comma-separated: a RoleBinding named after the
 * ClusterRole binds it to that ServiceAccount in `tenant-<name>`. The chart sets it; unset, the
 * operator binds nothing (a cluster where the roles are bound some other way, or a laptop).
 */

export interface TenantRoleBinding {
  /** The ClusterRole bound in each tenant namespace; also the RoleBinding's name. */
  clusterRole: string;
  serviceAccount: { namespace: string; name: string };
}

/** An RFC 1123 DNS subdomain (role and ServiceAccount names) or label (namespaces). */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function readTenantRoleBindings(
  value: string | undefined,
  fail: (message: string) => never,
): readonly TenantRoleBinding[] {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bindings = entries.map((entry): TenantRoleBinding => {
    const match = /^([^=\s]+)=([^/\s]+)\/([^/\s]+)$/.exec(entry);
    const [clusterRole, namespace, name] = match ? match.slice(1) : [];
    if (
      clusterRole === undefined ||
      namespace === undefined ||
      name === undefined ||
      !SUBDOMAIN.test(clusterRole) ||
      clusterRole.length > 253 ||
      !LABEL.test(namespace) ||
      namespace.length > 63 ||
      !SUBDOMAIN.test(name) ||
      name.length > 253
    ) {
      fail(
        `OPERATOR_TENANT_ROLE_BINDINGS: '${entry}' is not <clusterRole>=<namespace>/<serviceAccount> (Kubernetes names)`,
      );
    }
    return Object.freeze({ clusterRole, serviceAccount: Object.freeze({ namespace, name }) });
  });
  const roles = bindings.map((binding) => binding.clusterRole);
  const repeated = roles.find((role, index) => roles.indexOf(role) !== index);
  if (repeated !== undefined)
    fail(
      `OPERATOR_TENANT_ROLE_BINDINGS: ClusterRole '${repeated}' is named twice (it names its RoleBinding)`,
    );
  return Object.freeze(bindings);
}
