/**
 * `<cli> ensure-secrets`: creates, once, the Secrets a Helm release needs generated, and never
 * touches one that exists. The chart renders no random value (two `helm template` runs give the
 * same bytes, so Argo CD and Flux syncs rotate nothing); it runs this step as a Job instead
 * (templates/ensure-secrets.yaml), and the pods that mount these Secrets wait for them.
 *
 * - the at-rest encryption key and the token signing key, each a Secret in the release namespace;
 * - the platform's admin PAT and a first tenant's workspace API key and PAT: their plaintext in one
 *   Secret of the release namespace (for the user to read once with kubectl), their hashes in key
 *   Secrets of the tenant's namespace (what the operator publishes, README "Keys as Secrets").
 *
 * Creation is the API server's create (409 when the name is taken), so concurrent or repeated runs
 * agree on one value. A plaintext Secret that exists is the source of its hashes: a key Secret
 * missing beside it (a run stopped half-way) is made from it; one holding another key's hash is
 * left as it is and reported (exit 1), since replacing either would lock someone out.
 */
import { randomBytes } from 'node:crypto';
import { generateCredential, hashCredential } from '../auth/credential-hash.ts';
import { API_KEY_PREFIX, PAT_PREFIX } from '../auth/credential-prefixes.ts';
import { PAT_PERMISSIONS } from '../auth/permissions.ts';
import type { EnsureSecretsSettings } from '../config/ensure-secrets-settings.ts';
import { type Settings, SettingsError } from '../config/settings.ts';
import type { Logger } from '../observability/logger.ts';
import { ResourceConflictError } from '../resources/resource-errors.ts';
import {
  CREDENTIAL_LABEL,
  type ResourcesClient,
  type SecretResource,
  tenantNamespace,
} from '../resources/types.ts';

export interface EnsuredSecret {
  namespace: string;
  name: string;
  /** `created` by this run, or `kept`: it existed and was left as it was. */
  outcome: 'created' | 'kept';
}

/** What could not be ensured without changing an existing Secret; nothing was changed. */
export class EnsureSecretsError extends Error {
  constructor(problems: readonly string[]) {
    super(problems.join('; '));
    this.name = 'EnsureSecretsError';
  }
}

/**
 * Labels of what this step creates. No `app.kubernetes.io/instance`: Argo CD tracks its
 * application's objects by that label (or its own annotation), and would prune a Secret it took
 * for its own that is not in git.
 */
function labels(component: string): Record<string, string> {
  return { 'app.kubernetes.io/part-of': 'inference-gateway', 'app.kubernetes.io/component': component };
}
const ANNOTATIONS = { 'gateway.service.io/generated-by': 'ensure-secrets' };

function opaqueSecret(
  namespace: string,
  name: string,
  stringData: Record<string, string>,
  metadata: { labels: Record<string, string> },
): SecretResource {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: metadata.labels, annotations: { ...ANNOTATIONS } },
    type: 'Opaque',
    stringData,
  };
}

async function createUnlessPresent(
  resources: ResourcesClient,
  secret: SecretResource,
): Promise<EnsuredSecret> {
  const { name, namespace = '' } = secret.metadata;
  try {
    await resources.create(secret);
    return { namespace, name, outcome: 'created' };
  } catch (error) {
    if (error instanceof ResourceConflictError) return { namespace, name, outcome: 'kept' };
    throw error;
  }
}

/** A Secret's values, decoded; undefined when it does not exist. */
async function readSecret(
  resources: ResourcesClient,
  name: string,
  namespace: string,
): Promise<Record<string, string> | undefined> {
  const secret = await resources.get('Secret', name, namespace);
  if (secret === undefined) return undefined;
  const values: Record<string, string> = { ...secret.stringData };
  for (const [key, value] of Object.entries(secret.data ?? {}))
    values[key] = Buffer.from(value, 'base64').toString('utf8');
  return values;
}

/** One credential of a plaintext Secret and the key Secret that holds its hash. */
interface CredentialSlot {
  prefix: typeof API_KEY_PREFIX | typeof PAT_PREFIX;
  /** Keys of the plaintext Secret for the credential's id and for the credential itself. */
  idKey: string;
  plaintextKey: string;
  /** The key Secret in the tenant's namespace. */
  keySecret: string;
  type: 'api-key' | 'pat';
  /** Its other values (README "Keys as Secrets"). */
  attributes: Record<string, string>;
}

/** A plaintext Secret in the release namespace and the key Secrets made from it. */
interface CredentialSet {
  secret: string;
  tenant: string;
  /** Values written beside the credentials, for the reader's convenience. */
  extra: Record<string, string>;
  slots: CredentialSlot[];
}

const ALL_PAT_PERMISSIONS = PAT_PERMISSIONS.join(',');

function credentialSets(settings: EnsureSecretsSettings): CredentialSet[] {
  const sets: CredentialSet[] = [];
  if (settings.adminPat !== undefined) {
    sets.push({
      ...settings.adminPat,
      extra: {},
      slots: [
        {
          prefix: PAT_PREFIX,
          idKey: 'id',
          plaintextKey: 'token',
          keySecret: 'admin-pat',
          type: 'pat',
          attributes: {
            name: 'platform admin (helm install)',
            permissions: ALL_PAT_PERMISSIONS,
            admin: 'true',
          },
        },
      ],
    });
  }
  const first = settings.firstTenant;
  if (first !== undefined) {
    sets.push({
      secret: first.secret,
      tenant: first.tenant,
      extra: { tenant: first.tenant, workspace: first.workspace },
      slots: [
        {
          prefix: API_KEY_PREFIX,
          idKey: 'apiKeyId',
          plaintextKey: 'apiKey',
          keySecret: 'first-api-key',
          type: 'api-key',
          attributes: { workspace: first.workspace, grants: 'chat:write,embed' },
        },
        {
          prefix: PAT_PREFIX,
          idKey: 'patId',
          plaintextKey: 'pat',
          keySecret: 'first-pat',
          type: 'pat',
          attributes: {
            name: 'first tenant owner (helm install)',
            permissions: ALL_PAT_PERMISSIONS,
            admin: 'false',
          },
        },
      ],
    });
  }
  return sets;
}

async function ensureCredentialSet(
  resources: ResourcesClient,
  namespace: string,
  set: CredentialSet,
  problems: string[],
): Promise<EnsuredSecret[]> {
  const where = `${namespace}/${set.secret}`;
  let plaintexts = await readSecret(resources, set.secret, namespace);
  const ensured: EnsuredSecret[] = [];
  if (plaintexts === undefined) {
    const fresh: Record<string, string> = { ...set.extra };
    for (const slot of set.slots) {
      const credential = generateCredential(slot.prefix);
      fresh[slot.idKey] = credential.id;
      fresh[slot.plaintextKey] = credential.plaintext;
    }
    const result = await createUnlessPresent(
      resources,
      opaqueSecret(namespace, set.secret, fresh, { labels: labels('bootstrap') }),
    );
    ensured.push(result);
    // Another run made it between the read and the create: its credentials are the ones.
    plaintexts = result.outcome === 'created' ? fresh : await readSecret(resources, set.secret, namespace);
    if (plaintexts === undefined) throw new Error(`Secret ${where} vanished while it was being ensured`);
  } else ensured.push({ namespace, name: set.secret, outcome: 'kept' });

  const keyNamespace = tenantNamespace(set.tenant);
  for (const slot of set.slots) {
    const id = plaintexts[slot.idKey];
    const plaintext = plaintexts[slot.plaintextKey];
    if (!id || !plaintext?.startsWith(slot.prefix)) {
      problems.push(
        `Secret ${where} has no ${slot.idKey} and ${slot.plaintextKey} (a ${slot.prefix} key): ` +
          `delete it, and ${keyNamespace}/${slot.keySecret}, to have a new pair made`,
      );
      continue;
    }
    const hash = hashCredential(plaintext);
    const keySecret = opaqueSecret(
      keyNamespace,
      slot.keySecret,
      { id, hash, keyHint: `${slot.prefix}…${plaintext.slice(-4)}`, ...slot.attributes },
      { labels: { ...labels('bootstrap'), [CREDENTIAL_LABEL]: slot.type } },
    );
    const result = await createUnlessPresent(resources, keySecret);
    ensured.push(result);
    if (result.outcome === 'kept') {
      const existing = await readSecret(resources, slot.keySecret, keyNamespace);
      if (existing !== undefined && (existing.hash !== hash || existing.id !== id))
        problems.push(
          `Secret ${keyNamespace}/${slot.keySecret} holds another key than ${where} ` +
            `(${slot.plaintextKey}); both were left as they are: delete both to have a new pair made`,
        );
    }
  }
  return ensured;
}

/**
 * Creates each missing Secret the settings name, in `namespace` (and in the tenants' namespaces
 * for the hashes). Throws EnsureSecretsError when an existing Secret does not match its partner;
 * the others are still ensured.
 */
export async function ensureSecrets(
  resources: ResourcesClient,
  namespace: string,
  settings: EnsureSecretsSettings,
): Promise<EnsuredSecret[]> {
  const ensured: EnsuredSecret[] = [];
  if (settings.encryptionKeySecret !== undefined) {
    // 32 random bytes in base64: the form SERVICE_ENCRYPTION_KEY takes.
    const key = randomBytes(32).toString('base64');
    ensured.push(
      await createUnlessPresent(
        resources,
        opaqueSecret(
          namespace,
          settings.encryptionKeySecret,
          { 'encryption-key': key },
          { labels: labels('keys') },
        ),
      ),
    );
  }
  if (settings.signingKeySecret !== undefined) {
    // 36 random bytes: 48 characters, above the 32 SERVICE_TOKEN_SIGNING_KEY needs.
    const key = randomBytes(36).toString('base64url');
    ensured.push(
      await createUnlessPresent(
        resources,
        opaqueSecret(
          namespace,
          settings.signingKeySecret,
          { 'signing-key': key },
          { labels: labels('keys') },
        ),
      ),
    );
  }
  const problems: string[] = [];
  for (const set of credentialSets(settings))
    ensured.push(...(await ensureCredentialSet(resources, namespace, set, problems)));
  if (problems.length > 0) throw new EnsureSecretsError(problems);
  return ensured;
}

/** The CLI step: the cluster from KUBECONFIG or the pod's service account; exits 1 on a problem. */
export async function runEnsureSecrets(settings: Readonly<Settings>, log: Logger): Promise<void> {
  const wanted = settings.ensureSecrets;
  const namespace = wanted.namespace;
  if (namespace === undefined)
    throw new SettingsError('ensure-secrets needs ENSURE_NAMESPACE or POD_NAMESPACE');
  const { KubernetesResources } = await import('../resources/kubernetes-resources.ts');
  const resources = new KubernetesResources({ fieldManager: 'inference-gateway-ensure-secrets' });
  try {
    const ensured = await ensureSecrets(resources, namespace, wanted);
    // Names and outcomes only: never a value.
    for (const secret of ensured) log.info(secret, `secret ${secret.outcome}`);
    if (ensured.length === 0) log.info('nothing to ensure');
  } catch (error) {
    if (!(error instanceof EnsureSecretsError)) throw error;
    log.error({ problems: error.message }, 'secrets left as they are');
    process.exitCode = 1;
  } finally {
    await resources.close();
  }
}
