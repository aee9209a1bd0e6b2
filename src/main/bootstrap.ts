/**
 * First start of standalone: with no Tenant at all, create one tenant with one workspace, a
 * workspace API key, a PAT, a platform-admin PAT and a provisioning key, as resources (so they
 * survive restarts like anything a user creates). The plaintexts exist only in the returned value.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCredential } from '../auth/credential-hash.ts';
import { API_KEY_PREFIX, PAT_PREFIX, PROVISIONING_KEY_PREFIX } from '../auth/credential-prefixes.ts';
import { PAT_PERMISSIONS } from '../auth/permissions.ts';
import { credentialSecret } from '../resources/credential-secret.ts';
import { API_VERSION, type ResourcesClient, tenantNamespace } from '../resources/types.ts';

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

/** The first start's credentials, and what confirms they reached the user. */
export interface Bootstrap {
  credentials: BootstrapCredentials;
  /**
   * Call once the credentials are shown (and written to BOOTSTRAP_FILE) and the resources are on
   * disk: later starts then leave them alone. Until then, a next start replaces them with new ones.
   */
  delivered(): Promise<void>;
}

/** State-directory markers: the first start began (the Secrets it created), and it completed. */
const PENDING_MARKER = 'bootstrap-pending.json';
const DONE_MARKER = 'bootstrapped';

/**
 * Creates the first tenant and its credentials on the first start. A first start that never
 * delivered its credentials (it failed before the banner, the file, or the write to disk) is
 * started over with new credentials, the undelivered ones deleted: their plaintexts are lost, and
 * nobody could use the service without them. Tenants applied from RESOURCES_DIR do not count as a
 * first start having happened. Returns undefined when there is nothing to do.
 */
export async function bootstrapIfEmpty(
  resources: ResourcesClient,
  stateDir: string,
): Promise<Bootstrap | undefined> {
  const pendingFile = join(stateDir, PENDING_MARKER);
  const doneFile = join(stateDir, DONE_MARKER);
  if (existsSync(doneFile)) return undefined;
  const undelivered = await readPending(pendingFile);
  if (undelivered === undefined && (await resources.get('Tenant', BOOTSTRAP_TENANT)) !== undefined)
    return undefined;
  for (const name of undelivered ?? [])
    await resources.delete('Secret', name, tenantNamespace(BOOTSTRAP_TENANT));

  const apiKey = generateCredential(API_KEY_PREFIX);
  const pat = generateCredential(PAT_PREFIX);
  const adminPat = generateCredential(PAT_PREFIX);
  const provisioningKey = generateCredential(PROVISIONING_KEY_PREFIX);
  const permissions = PAT_PERMISSIONS.join(',');
  const secrets = [
    credentialSecret(BOOTSTRAP_TENANT, 'api-key', apiKey, {
      workspace: BOOTSTRAP_WORKSPACE,
      grants: 'chat:write,embed',
    }),
    credentialSecret(BOOTSTRAP_TENANT, 'pat', pat, { permissions, admin: 'false' }),
    credentialSecret(BOOTSTRAP_TENANT, 'pat', adminPat, { permissions, admin: 'true' }),
    credentialSecret(BOOTSTRAP_TENANT, 'provisioning-key', provisioningKey, {}),
  ];
  await writeFile(pendingFile, JSON.stringify(secrets.map((secret) => secret.metadata.name)), {
    mode: 0o600,
  });
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
  for (const secret of secrets) await resources.apply(secret);
  return {
    credentials: {
      tenantId: BOOTSTRAP_TENANT,
      workspaceId: BOOTSTRAP_WORKSPACE,
      apiKeyId: apiKey.id,
      apiKey: apiKey.plaintext,
      pat: pat.plaintext,
      adminPat: adminPat.plaintext,
      provisioningKey: provisioningKey.plaintext,
    },
    async delivered() {
      await writeFile(doneFile, `${new Date().toISOString()}\n`, { mode: 0o600 });
      await rm(pendingFile, { force: true });
    },
  };
}

/** The Secret names an undelivered first start created, or undefined when none is pending. */
async function readPending(file: string): Promise<string[] | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const names: unknown = JSON.parse(text);
  return Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string') : [];
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
