/**
 * First start of standalone: with no Tenant at all, create one tenant with one workspace, a
 * workspace API key, a PAT, a platform-admin PAT and a provisioning key, as resources (so they
 * survive restarts like anything a user creates). The plaintexts exist only in the returned value.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { generateCredential } from '../auth/credential-hash.ts';
import { PAT_PERMISSIONS } from '../auth/permissions.ts';
import { credentialSecret } from '../resources/credential-secret.ts';
import { API_VERSION, type ResourcesClient } from '../resources/types.ts';

export interface BootstrapCredentials {
  tenantId: string;
  workspaceId: string;
  apiKeyId: string;
  apiKey: string;
  pat: string;
  adminPat: string;
  provisioningKey: string;
}

export const BOOTSTRAP_TENANT = 'default';
export const BOOTSTRAP_WORKSPACE = 'default';

/**
 * Creates the first tenant and its credentials on the first start (no marker file yet and no
 * bootstrap tenant). Tenants applied from RESOURCES_DIR do not count as a first start having
 * happened. Returns undefined when there is nothing to do.
 */
export async function bootstrapIfEmpty(
  resources: ResourcesClient,
  markerFile: string,
): Promise<BootstrapCredentials | undefined> {
  if (existsSync(markerFile) || (await resources.get('Tenant', BOOTSTRAP_TENANT)) !== undefined)
    return undefined;
  const apiKey = generateCredential('tt_sk_');
  const pat = generateCredential('tt_pat_');
  const adminPat = generateCredential('tt_pat_');
  const provisioningKey = generateCredential('tt_prov_');
  await resources.apply({
    apiVersion: API_VERSION,
    kind: 'Tenant',
    metadata: { name: BOOTSTRAP_TENANT },
    spec: {
      displayName: 'Default tenant',
      billingMode: 'delegated',
      workspaces: [{ id: BOOTSTRAP_WORKSPACE, name: 'Default workspace' }],
    },
  });
  const permissions = PAT_PERMISSIONS.join(',');
  await resources.apply(
    credentialSecret(BOOTSTRAP_TENANT, 'api-key', apiKey, {
      workspace: BOOTSTRAP_WORKSPACE,
      grants: 'chat:write,embed',
    }),
  );
  await resources.apply(credentialSecret(BOOTSTRAP_TENANT, 'pat', pat, { permissions, admin: 'false' }));
  await resources.apply(credentialSecret(BOOTSTRAP_TENANT, 'pat', adminPat, { permissions, admin: 'true' }));
  await resources.apply(credentialSecret(BOOTSTRAP_TENANT, 'provisioning-key', provisioningKey, {}));
  await writeFile(markerFile, `${new Date().toISOString()}\n`, { mode: 0o600 });
  return {
    tenantId: BOOTSTRAP_TENANT,
    workspaceId: BOOTSTRAP_WORKSPACE,
    apiKeyId: apiKey.id,
    apiKey: apiKey.plaintext,
    pat: pat.plaintext,
    adminPat: adminPat.plaintext,
    provisioningKey: provisioningKey.plaintext,
  };
}

/** Writes the credentials as JSON, readable by the owner only. */
export async function writeBootstrapFile(path: string, credentials: BootstrapCredentials): Promise<void> {
  await writeFile(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
}

/** The one-time banner on stdout (never through the logger, so log shipping never sees it). */
export function renderBootstrapBanner(credentials: BootstrapCredentials, gatewayUrl: string): string {
  return [
    '',
    '== First start: credentials created. They are shown once; store them now. ==',
    `tenant:            ${credentials.tenantId}`,
    `workspace:         ${credentials.workspaceId}`,
    `API key (${credentials.apiKeyId}): ${credentials.apiKey}`,
    `PAT:               ${credentials.pat}`,
    `admin PAT:         ${credentials.adminPat}`,
    `provisioning key:  ${credentials.provisioningKey}`,
    '',
    `Try: curl ${gatewayUrl}/v1/chat/completions -H "Authorization: Bearer ${credentials.apiKey}" \\`,
    `       -H 'content-type: application/json' -d '{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'`,
    '',
  ].join('\n');
}
