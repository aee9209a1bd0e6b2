/**
 * The Secret that holds one credential's hash and attributes in its tenant's namespace, in the
 * layout the reconcile step reads (operator/desired-config.ts), marked as the control plane's
 * (the Tenant's deletion deletes it).
 */
import {
  CREATED_BY_CONTROL_PLANE,
  CREATED_BY_LABEL,
  CREDENTIAL_LABEL,
  type CredentialSecretType,
  type SecretResource,
  tenantNamespace,
} from './types.ts';

/** The Secret's name: derived from the hash, since credential ids are not valid object names. */
export function credentialSecretName(type: CredentialSecretType, hash: string): string {
  return `${type}-${hash.slice(0, 20)}`;
}

export function credentialSecret(
  tenant: string,
  type: CredentialSecretType,
  credential: { id: string; hash: string; hint?: string },
  attributes: Record<string, string>,
): SecretResource {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: credentialSecretName(type, credential.hash),
      namespace: tenantNamespace(tenant),
      labels: { [CREDENTIAL_LABEL]: type, [CREATED_BY_LABEL]: CREATED_BY_CONTROL_PLANE },
    },
    type: 'Opaque',
    stringData: {
      id: credential.id,
      hash: credential.hash,
      ...(credential.hint === undefined ? {} : { keyHint: credential.hint }),
      createdAt: new Date().toISOString(),
      ...attributes,
    },
  };
}
