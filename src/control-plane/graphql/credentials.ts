/**
 * Provider credentials (Connections, bring your own key) on the control plane: the resolvers. A
 * credential is a Connection resource plus the Secret it references, in the tenant's namespace,
 * written through the resources interface; an upsert returns once the gateway's view holds the
 * record with the new secret (it works on the gateway when the call returns), a revoke once the
 * record is gone. Secrets are write-only: results and the audit log carry `keyHint`, never a secret
 * value. The SDL is credentials-schema.ts, the kinds' spellings provider-kinds.ts, and checking and
 * merging upsert arguments credential-input.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import { connectionKeyHint } from '../../auth/credential-hash.ts';
import { connectionSpendCounterName } from '../../billing/connection-caps.ts';
import { PROVIDER_NAMES } from '../../providers/registry.ts';
import type { ConnectionSpec } from '../../resources/crd-types.ts';
import { byAge, decodeSecretData, missingConnectionKeys } from '../../resources/desired-records.ts';
import { type ConnectionResource, tenantNamespace } from '../../resources/types.ts';
import { type ConnectionRecord, PROVIDER_KINDS, type ProviderKind } from '../../stores/records.ts';
import { probeConnection } from '../credential-probe.ts';
import { audited } from './audit.ts';
import {
  asValidation,
  notFound,
  type ResolverContext,
  requirePermission,
  requireWorkspace,
} from './context.ts';
import {
  checkSlug,
  checkUpsertArgs,
  credentialObjectNames,
  mergeCredentialObjects,
  type UpsertArgs,
} from './credential-input.ts';
import { isProviderKind, KIND_OF_ENUM_VALUE } from './provider-kinds.ts';

export { credentialTypeDefs } from './credentials-schema.ts';

function slugOfResource(connection: ConnectionResource): string {
  return connection.spec.slug ?? connection.spec.label ?? connection.metadata.name;
}

function connectionId(tenantId: string, slug: string): string {
  return `${tenantId}/${slug}`;
}

/** Whether the gateway's record reflects this spec (secret aside). */
function recordMatches(record: ConnectionRecord, spec: ConnectionSpec): boolean {
  return (
    record.provider === spec.provider &&
    record.workspaceId === spec.workspace &&
    record.baseUrl === spec.baseUrl &&
    record.awsRegion === spec.awsRegion &&
    record.vertexProject === spec.vertexProject &&
    record.vertexRegion === spec.vertexRegion &&
    record.defaultModel === spec.defaultModel &&
    record.dailyCapMicros === spec.dailyCapMicros
  );
}

interface PresentedCredential {
  id: string;
  slug: string;
  label: string;
  kind: ProviderKind;
  provider: ProviderKind;
  keyHint: string;
  workspaceId: string | null;
  baseUrl: string | null;
  awsRegion: string | null;
  vertexProject: string | null;
  vertexRegion: string | null;
  defaultModel: string | null;
  dailyCapMicros: number | null;
  createdAt: string | null;
  ready: boolean;
  status: string;
}

function present(
  tenantId: string,
  connection: ConnectionResource,
  keyHint: string,
  status: string,
): PresentedCredential {
  const { spec } = connection;
  const slug = slugOfResource(connection);
  return {
    id: connectionId(tenantId, slug),
    slug,
    label: slug,
    kind: spec.provider,
    provider: spec.provider,
    keyHint,
    workspaceId: spec.workspace ?? null,
    baseUrl: spec.baseUrl ?? null,
    awsRegion: spec.awsRegion ?? null,
    vertexProject: spec.vertexProject ?? null,
    vertexRegion: spec.vertexRegion ?? null,
    defaultModel: spec.defaultModel ?? null,
    dailyCapMicros: spec.dailyCapMicros ?? null,
    createdAt: connection.metadata.creationTimestamp ?? null,
    ready: status === 'Ready',
    status,
  };
}

/** The tenant's Connections of a slug, oldest (the one the gateway serves) first. */
async function connectionsWithSlug(context: ResolverContext, slug: string) {
  const namespace = tenantNamespace(context.tenantId);
  const all = await context.services.resources.list('Connection', namespace);
  return { all, matches: byAge(all.filter((connection) => slugOfResource(connection) === slug)) };
}

async function upsertProviderCredential(_parent: unknown, args: UpsertArgs, context: ResolverContext) {
  requirePermission(context, 'credentials:manage');
  const checked = checkUpsertArgs(args);
  const { slug } = checked;
  if (args.workspaceId != null) requireWorkspace(context, args.workspaceId);
  const { resources, view } = context.services;
  const namespace = tenantNamespace(context.tenantId);

  const { all, matches } = await connectionsWithSlug(context, slug);
  const existing = matches[0];
  const { name, secretName } = credentialObjectNames(slug, existing, all);
  const previousSecret = existing ? await resources.get('Secret', secretName, namespace) : undefined;
  const previousMaterial = previousSecret ? decodeSecretData(previousSecret) : {};
  const { connection, secret, material } = mergeCredentialObjects(args, checked, {
    namespace,
    name,
    secretName,
    existing,
    previousSecret,
    previousMaterial,
  });
  const { spec } = connection;

  const previousRecord = view.connectionBySlug(context.tenantId, slug);
  await resources.apply(secret).catch(asValidation);
  const applied = await resources.apply(connection).catch(asValidation);

  // In force on the gateway: the view holds this spec with this secret.
  const keyHint = connectionKeyHint(material);
  const digest = context.services.secretDigest?.(material);
  const secretChanged = !isDeepStrictEqual(previousMaterial, material);
  await context.services.awaitConfig(
    'connection',
    connectionId(context.tenantId, slug),
    (record) =>
      record !== undefined &&
      recordMatches(record, spec) &&
      record.keyHint === keyHint &&
      (digest !== undefined
        ? record.secretDigest === digest
        : !secretChanged ||
          previousRecord === undefined ||
          record.secretDigest !== previousRecord.secretDigest),
  );
  return present(context.tenantId, { ...applied, spec }, keyHint, 'Ready');
}

async function revokeProviderCredential(_parent: unknown, args: { slug: string }, context: ResolverContext) {
  requirePermission(context, 'credentials:manage');
  const slug = checkSlug(args.slug);
  const { resources } = context.services;
  const namespace = tenantNamespace(context.tenantId);
  const { all, matches } = await connectionsWithSlug(context, slug);
  if (matches.length === 0) throw notFound(`no provider credential '${slug}' in your tenant`);
  // Every Connection of the slug goes (a younger one would otherwise take the slug over).
  for (const connection of matches) await resources.delete('Connection', connection.metadata.name, namespace);
  const stillUsed = new Set(
    all
      .filter((connection) => !matches.includes(connection))
      .map((connection) => connection.spec.secretRef.name),
  );
  for (const secretName of new Set(matches.map((connection) => connection.spec.secretRef.name))) {
    if (!stillUsed.has(secretName)) await resources.delete('Secret', secretName, namespace);
  }
  await context.services.awaitConfig(
    'connection',
    connectionId(context.tenantId, slug),
    (record) => record === undefined,
  );
  return true;
}

async function testProviderCredential(_parent: unknown, args: { slug: string }, context: ResolverContext) {
  requirePermission(context, 'credentials:manage');
  const slug = checkSlug(args.slug);
  const connection = (await connectionsWithSlug(context, slug)).matches[0];
  if (connection === undefined) throw notFound(`no provider credential '${slug}' in your tenant`);
  const secret = await context.services.resources.get(
    'Secret',
    connection.spec.secretRef.name,
    tenantNamespace(context.tenantId),
  );
  return probeConnection(
    connection.spec,
    secret ? decodeSecretData(secret) : {},
    context.services.probeOptions,
  );
}

async function providerCredentials(
  _parent: unknown,
  args: { workspaceId?: string | null },
  context: ResolverContext,
) {
  requirePermission(context, 'credentials:manage');
  if (args.workspaceId != null) requireWorkspace(context, args.workspaceId);
  const namespace = tenantNamespace(context.tenantId);
  const [connections, secrets] = await Promise.all([
    context.services.resources.list('Connection', namespace),
    context.services.resources.list('Secret', namespace),
  ]);
  const secretsByName = new Map(secrets.map((secret) => [secret.metadata.name, secret]));
  const served = new Set<string>();
  const result: PresentedCredential[] = [];
  for (const connection of byAge(connections)) {
    const { spec } = connection;
    if (args.workspaceId != null && spec.workspace !== undefined && spec.workspace !== args.workspaceId)
      continue;
    const slug = slugOfResource(connection);
    const secret = secretsByName.get(spec.secretRef.name);
    const material = secret ? decodeSecretData(secret) : undefined;
    const record = context.services.view.connectionBySlug(context.tenantId, slug);
    let status: string;
    if (served.has(slug)) status = 'SlugConflict';
    else if (record !== undefined && record.provider === spec.provider) status = 'Ready';
    else
      status =
        connection.status?.conditions?.find(
          (condition) => condition.type === 'Ready' && condition.status === 'False',
        )?.reason ??
        (material === undefined
          ? 'SecretNotFound'
          : missingConnectionKeys(spec.provider, material) !== undefined
            ? 'KeyMissing'
            : 'Pending');
    served.add(slug);
    const keyHint =
      status === 'Ready' && record ? record.keyHint : material ? connectionKeyHint(material) : '';
    result.push(present(context.tenantId, connection, keyHint, status));
  }
  return result.sort((left, right) => (left.slug < right.slug ? -1 : left.slug > right.slug ? 1 : 0));
}

function providerAvailability(_parent: unknown, args: { workspaceId: string }, context: ResolverContext) {
  requirePermission(context, 'credentials:manage');
  requireWorkspace(context, args.workspaceId);
  const platform = new Set(context.services.platformProviders);
  const own = context.services.view
    .connectionsOfTenant(context.tenantId)
    .filter((record) => record.workspaceId === undefined || record.workspaceId === args.workspaceId);
  // Every provider the gateway knows: the registry's prefixes and the Connection kinds.
  const names = [...new Set([...PROVIDER_NAMES, ...platform, ...PROVIDER_KINDS])].sort();
  return names.map((name) => {
    const connectionSlugs = own
      .filter((record) => record.provider === name)
      .map((record) => record.slug)
      .sort();
    return {
      provider: name,
      kind: isProviderKind(name) ? name : null,
      platform: platform.has(name),
      connectionSlugs,
      available: platform.has(name) || connectionSlugs.length > 0,
    };
  });
}

const upsertTarget = (args: UpsertArgs) =>
  args.slug ?? args.label ?? args.provider ?? args.providerName?.slice(0, 64) ?? '?';
const slugTarget = (args: { slug: string }) => args.slug.slice(0, 64);

export const credentialResolvers = {
  ProviderCredentialKind: KIND_OF_ENUM_VALUE,
  ProviderCredential: {
    spentTodayMicros: (parent: PresentedCredential, _args: unknown, context: ResolverContext) =>
      parent.dailyCapMicros === null
        ? null
        : context.services.runtime.getCounter(connectionSpendCounterName(parent.id, Date.now())),
  },
  Query: { providerCredentials, providerAvailability },
  Mutation: {
    upsertProviderCredential: audited('upsertProviderCredential', upsertTarget, upsertProviderCredential),
    testProviderCredential: audited('testProviderCredential', slugTarget, testProviderCredential),
    revokeProviderCredential: audited('revokeProviderCredential', slugTarget, revokeProviderCredential),
  },
};
