/**
 * Settings of `<cli> ensure-secrets`, the one-shot step that creates the Secrets a Helm release
 * needs generated (its keys and day-one credentials) once, in the cluster, so that the chart itself
 * never generates anything and renders the same bytes every time (Argo CD, Flux). The chart's Job
 * sets them (templates/ensure-secrets.yaml); each names a Secret to make if it does not exist yet.
 * Part of Settings (settings.ts).
 */

/** A credential pair: the plaintext Secret in the release namespace and the tenant whose namespace gets the hash. */
export interface EnsuredCredentialSetting {
  /** The plaintext Secret's name, in `namespace`. */
  secret: string;
  /** The tenant whose namespace (`tenant-<name>`) receives the key Secrets holding the hashes. */
  tenant: string;
}

export interface EnsureSecretsSettings {
  /** Where the key Secrets and the plaintext Secrets go (ENSURE_NAMESPACE, else POD_NAMESPACE). */
  namespace: string | undefined;
  /** ENSURE_ENCRYPTION_KEY_SECRET: a Secret with `encryption-key`, 32 random bytes in base64. */
  encryptionKeySecret: string | undefined;
  /** ENSURE_SIGNING_KEY_SECRET: a Secret with `signing-key`, 48 random characters. */
  signingKeySecret: string | undefined;
  /** ENSURE_ADMIN_PAT_SECRET and ENSURE_ADMIN_PAT_TENANT: the platform's admin PAT. */
  adminPat: EnsuredCredentialSetting | undefined;
  /**
   * ENSURE_FIRST_TENANT_SECRET, ENSURE_FIRST_TENANT and ENSURE_FIRST_TENANT_WORKSPACE: a workspace
   * API key and a PAT of a first tenant.
   */
  firstTenant: (EnsuredCredentialSetting & { workspace: string }) | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;
type Fail = (message: string) => never;

/** A Kubernetes object name (RFC 1123 subdomain), as Secret names are. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
/** A tenant name: a DNS label short enough for `tenant-<name>`. */
const TENANT_NAME = /^[a-z0-9]([-a-z0-9]{0,54}[a-z0-9])?$/;

export function readEnsureSecretsSettings(env: Env, fail: Fail): EnsureSecretsSettings {
  const value = (name: string, pattern: RegExp, what: string): string | undefined => {
    const raw = env[name]?.trim() || undefined;
    if (raw !== undefined && !pattern.test(raw)) return fail(`${name} must be ${what}, got '${raw}'`);
    return raw;
  };
  const secretName = (name: string) => value(name, OBJECT_NAME, 'a Secret name');
  const tenantName = (name: string) => value(name, TENANT_NAME, 'a tenant name');
  const pair = (secretVariable: string, tenantVariable: string) => {
    const secret = secretName(secretVariable);
    const tenant = tenantName(tenantVariable);
    if ((secret === undefined) !== (tenant === undefined))
      return fail(`${secretVariable} and ${tenantVariable} must be set together`);
    return secret === undefined || tenant === undefined ? undefined : { secret, tenant };
  };
  const adminPat = pair('ENSURE_ADMIN_PAT_SECRET', 'ENSURE_ADMIN_PAT_TENANT');
  const first = pair('ENSURE_FIRST_TENANT_SECRET', 'ENSURE_FIRST_TENANT');
  const workspace = value('ENSURE_FIRST_TENANT_WORKSPACE', /^[a-z0-9][a-z0-9-]{0,62}$/, 'a workspace id');
  if (first !== undefined && workspace === undefined)
    return fail('ENSURE_FIRST_TENANT needs ENSURE_FIRST_TENANT_WORKSPACE');
  if (first !== undefined && adminPat !== undefined && first.tenant === adminPat.tenant)
    return fail('ENSURE_FIRST_TENANT must differ from ENSURE_ADMIN_PAT_TENANT');
  return Object.freeze({
    namespace: env.ENSURE_NAMESPACE?.trim() || env.POD_NAMESPACE?.trim() || undefined,
    encryptionKeySecret: secretName('ENSURE_ENCRYPTION_KEY_SECRET'),
    signingKeySecret: secretName('ENSURE_SIGNING_KEY_SECRET'),
    adminPat: adminPat === undefined ? undefined : Object.freeze(adminPat),
    firstTenant:
      first === undefined || workspace === undefined ? undefined : Object.freeze({ ...first, workspace }),
  });
}
