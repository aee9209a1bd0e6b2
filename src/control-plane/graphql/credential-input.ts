/**
 * upsertProviderCredential's arguments: checking them, and merging them with the Connection and
 * Secret the slug already has into the two objects to write. Nothing here does I/O; error messages
 * never quote a secret value.
 */
import { createHash } from 'node:crypto';
import type { ConnectionSpec } from '../../resources/crd-types.ts';
import { missingConnectionKeys } from '../../resources/desired-records.ts';
import {
  API_GROUP,
  API_VERSION,
  type ConnectionResource,
  CREATED_BY_CONTROL_PLANE,
  CREATED_BY_LABEL,
  type SecretResource,
} from '../../resources/types.ts';
import { SLUG_PATTERN, validateResource } from '../../resources/validate.ts';
import { PROVIDER_KINDS, type ProviderKind } from '../../stores/records.ts';
import { validationError } from './context.ts';
import { parseProviderKind } from './provider-kinds.ts';

/** Secret keys of a Connection, as the reconcile step reads them (operator/desired-config.ts). */
const SECRET_ARGS = [
  'apiKey',
  'awsAccessKeyId',
  'awsSecretAccessKey',
  'awsSessionToken',
  'gcpServiceAccountJson',
] as const;
type SecretArg = (typeof SECRET_ARGS)[number];

/** Non-secret arguments and the ConnectionSpec field each one sets. */
const SPEC_ARGS = [
  ['baseUrl', 'baseUrl'],
  ['awsRegion', 'awsRegion'],
  ['vertexProject', 'vertexProject'],
  ['vertexRegion', 'vertexRegion'],
  ['workspaceId', 'workspace'],
  ['defaultModel', 'defaultModel'],
  ['dailyCapMicros', 'dailyCapMicros'],
] as const;
type SpecArg = (typeof SPEC_ARGS)[number][0];
type SpecExtras = Pick<ConnectionSpec, (typeof SPEC_ARGS)[number][1]>;

export type UpsertArgs = {
  provider?: ProviderKind | null;
  providerName?: string | null;
  slug?: string | null;
  label?: string | null;
} & { [K in SecretArg]?: string | null } & { [K in Exclude<SpecArg, 'dailyCapMicros'>]?: string | null } & {
  dailyCapMicros?: number | null;
};

/** The arguments that could be checked without reading anything. */
export interface CheckedUpsert {
  provider: ProviderKind;
  slug: string;
  /** The secret arguments given: a value to set, or null to clear. */
  secretChanges: Partial<Record<SecretArg, string | null>>;
}

/** What the slug has today and where the objects go. */
export interface CurrentCredential {
  namespace: string;
  name: string;
  secretName: string;
  existing: ConnectionResource | undefined;
  previousSecret: SecretResource | undefined;
  previousMaterial: Record<string, string>;
}

/** Labels the Secrets this module writes with the name of their Connection. */
const CONNECTION_LABEL = `${API_GROUP}/connection`;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `@my-llm` is accepted for `my-llm`, as clients write it in model names. */
export function checkSlug(raw: string): string {
  const slug = raw.startsWith('@') ? raw.slice(1) : raw;
  if (!SLUG_PATTERN.test(slug)) {
    throw validationError(
      `slug must be 1-63 lowercase letters, digits and -, starting with a letter or digit, got '${slug.slice(0, 64)}'`,
    );
  }
  return slug;
}

function providerOf(args: UpsertArgs): ProviderKind {
  let named: ProviderKind | undefined;
  if (args.providerName != null) {
    named = parseProviderKind(args.providerName);
    if (named === undefined) {
      throw validationError(
        `unknown provider '${args.providerName.slice(0, 64)}': one of ${PROVIDER_KINDS.join(', ')}`,
      );
    }
  }
  if (args.provider != null && named !== undefined && args.provider !== named) {
    throw validationError(`provider and providerName disagree ('${args.provider}' vs '${named}')`);
  }
  const provider = args.provider ?? named;
  if (provider === undefined) throw validationError('provider (or providerName) is required');
  return provider;
}

function secretChangesOf(args: UpsertArgs): Partial<Record<SecretArg, string | null>> {
  const changes: Partial<Record<SecretArg, string | null>> = {};
  for (const field of SECRET_ARGS) {
    const value = args[field];
    if (value === undefined) continue;
    if (value === null) {
      changes[field] = null;
      continue;
    }
    const trimmed = value.trim();
    if (trimmed === '') throw validationError(`${field} must not be empty (pass null to clear it)`);
    if (trimmed.length > 16_384) throw validationError(`${field} is longer than 16384 characters`);
    changes[field] = trimmed;
  }
  const json = changes.gcpServiceAccountJson;
  if (typeof json === 'string') {
    let account: unknown;
    try {
      account = JSON.parse(json);
    } catch {
      account = undefined;
    }
    const fields = account as { client_email?: unknown; private_key?: unknown } | undefined;
    if (typeof fields?.client_email !== 'string' || typeof fields.private_key !== 'string') {
      throw validationError(
        'gcpServiceAccountJson must be a service-account key file (JSON with client_email and private_key)',
      );
    }
  }
  return changes;
}

function checkExtras(args: UpsertArgs): void {
  const cap = args.dailyCapMicros;
  if (cap != null && (!Number.isSafeInteger(cap) || cap < 0)) {
    throw validationError('dailyCapMicros must be a whole number of USD micros, 0 or more');
  }
  for (const [arg] of SPEC_ARGS) {
    const value = args[arg];
    if (typeof value === 'string' && value.trim() === '')
      throw validationError(`${arg} must not be empty (pass null to clear it)`);
  }
}

/** Checks in a fixed order, so a call with several mistakes always hears of the same one first. */
export function checkUpsertArgs(args: UpsertArgs): CheckedUpsert {
  const provider = providerOf(args);
  const slug = checkSlug(args.slug ?? args.label ?? provider);
  const secretChanges = secretChangesOf(args);
  checkExtras(args);
  return { provider, slug, secretChanges };
}

/** A new Connection's object name: the slug when it is a DNS label no other Connection has. */
function objectNameFor(slug: string, taken: (name: string) => boolean): string {
  if (DNS_LABEL.test(slug) && !taken(slug)) return slug;
  const digest = createHash('sha256').update(slug).digest('hex').slice(0, 8);
  return `${slug.replace(/-+$/, '').slice(0, 54)}-${digest}`;
}

/** The existing Connection keeps its object names; a new one gets names no Connection has. */
export function credentialObjectNames(
  slug: string,
  existing: ConnectionResource | undefined,
  connections: readonly ConnectionResource[],
): { name: string; secretName: string } {
  const name =
    existing?.metadata.name ??
    objectNameFor(slug, (candidate) =>
      connections.some((connection) => connection.metadata.name === candidate),
    );
  return { name, secretName: existing?.spec.secretRef.name ?? `${name}-credential` };
}

function encodeData(material: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(material).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')]),
  );
}

/**
 * The Connection and Secret to write, and the secret material they hold. An argument left out
 * keeps its current value and an explicit null clears it. Both objects are checked before either
 * is written, so a refusal leaves nothing half-done.
 */
export function mergeCredentialObjects(
  args: UpsertArgs,
  { provider, slug, secretChanges }: CheckedUpsert,
  current: CurrentCredential,
): { connection: ConnectionResource; secret: SecretResource; material: Record<string, string> } {
  const { namespace, name, secretName, existing, previousSecret } = current;
  // Secret values left out keep theirs, unless the kind changes: those belonged to another provider.
  const material: Record<string, string> =
    existing?.spec.provider === provider ? { ...current.previousMaterial } : {};
  for (const [field, value] of Object.entries(secretChanges)) {
    if (value === null || value === undefined) delete material[field];
    else material[field] = value;
  }
  const missing = missingConnectionKeys(provider, material);
  if (missing !== undefined) throw validationError(`the credential ${missing}`);

  const spec: ConnectionSpec = { provider, slug, secretRef: { name: secretName } };
  const extras = spec as SpecExtras;
  for (const [arg, field] of SPEC_ARGS) {
    const value = args[arg] === undefined ? existing?.spec[field] : (args[arg] ?? undefined);
    if (value !== undefined) (extras as Record<string, unknown>)[field] = value;
  }
  const connection: ConnectionResource = {
    apiVersion: API_VERSION,
    kind: 'Connection',
    metadata: {
      name,
      namespace,
      ...(existing?.metadata.labels ? { labels: existing.metadata.labels } : {}),
      ...(existing?.metadata.annotations ? { annotations: existing.metadata.annotations } : {}),
    },
    spec,
  };
  const secret: SecretResource = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretName,
      namespace,
      // Marked as the control plane's only when it creates the Secret: one a user made stays
      // theirs (a Tenant's deletion deletes only the control plane's).
      labels: {
        ...previousSecret?.metadata.labels,
        [CONNECTION_LABEL]: name,
        ...(previousSecret === undefined ? { [CREATED_BY_LABEL]: CREATED_BY_CONTROL_PLANE } : {}),
      },
      ...(previousSecret?.metadata.annotations ? { annotations: previousSecret.metadata.annotations } : {}),
    },
    type: 'Opaque',
    data: encodeData(material),
  };
  const problems = [...validateResource(connection), ...validateResource(secret)];
  if (problems.length > 0) throw validationError(problems.join('; '));
  return { connection, secret, material };
}
