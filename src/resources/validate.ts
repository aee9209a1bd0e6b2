/**
 * Validation of Tenant, CachePolicy, Connection, ModelRoute and Secret objects, mirroring what the CRD
 * schemas and their CEL rules (and the API server, for Secrets) enforce, so that the local
 * resources client refuses what Kubernetes would refuse. Each message names the rule it breaks.
 */
import { PROVIDER_KINDS } from '../stores/records.ts';
import { Checker, DNS_LABEL_MAX, type Fields, isObject, SLUG_PATTERN } from './resource-checker.ts';
import { API_VERSION, CREDENTIAL_LABEL, RESOURCE_KINDS, type ResourceKind } from './types.ts';
import { checkModelRouteSpec } from './validate-model-route.ts';

export { SLUG_PATTERN };
/** Dependency tags (spec.md section 2.4). */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9._:-]*$/;
export const MAX_DEFAULT_TAGS = 16;
export const MAX_TTL_SECONDS = 86_400;
/** The tenant's namespace is `tenant-<name>`, which must itself be a DNS label. */
export const MAX_TENANT_NAME = DNS_LABEL_MAX - 'tenant-'.length;
export const REFERRAL_PATTERN = /^[a-z0-9._-]{1,64}$/;
/** An organisation's slug: a Tenant name (its namespace is tenant-<slug>). */
export const TENANT_SLUG_PATTERN = /^[a-z0-9]([a-z0-9-]{0,54}[a-z0-9])?$/;
/** Enough of an address to reach someone; the mail system is the real check. */
export const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const SECRET_KEY_PATTERN = /^[-._a-zA-Z0-9]{1,253}$/;
const LABEL_VALUE_PATTERN = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CREDENTIAL_TYPES = ['api-key', 'pat', 'provisioning-key'];
const CLUSTER_SCOPED: ReadonlySet<ResourceKind> = new Set(['Tenant']);

function checkMetadata(check: Checker, kind: ResourceKind, metadata: unknown): void {
  if (!check.present(metadata, 'metadata')) return;
  if (!isObject(metadata)) {
    check.fail('metadata must be an object');
    return;
  }
  if (check.present(metadata.name, 'metadata.name')) {
    if (kind === 'Secret') check.dnsSubdomain(metadata.name, 'metadata.name');
    else check.dnsLabel(metadata.name, 'metadata.name', kind === 'Tenant' ? MAX_TENANT_NAME : DNS_LABEL_MAX);
  }
  if (CLUSTER_SCOPED.has(kind)) {
    if (metadata.namespace !== undefined && metadata.namespace !== '') {
      check.fail(`metadata.namespace must be empty: ${kind} is cluster-scoped`);
    }
  } else if (metadata.namespace === undefined || metadata.namespace === '') {
    check.fail(`metadata.namespace is required: ${kind} is namespaced`);
  } else {
    check.dnsLabel(metadata.namespace, 'metadata.namespace');
  }
  check.stringMap(metadata.annotations, 'metadata.annotations');
  if (check.stringMap(metadata.labels, 'metadata.labels')) {
    for (const [key, value] of Object.entries(metadata.labels)) {
      if (typeof value !== 'string') continue;
      if (value.length > DNS_LABEL_MAX || !LABEL_VALUE_PATTERN.test(value)) {
        check.fail(`metadata.labels.${key} must be a valid label value (at most 63 of A-Z a-z 0-9 - _ .)`);
      }
    }
    const credential = metadata.labels[CREDENTIAL_LABEL];
    if (typeof credential === 'string' && !CREDENTIAL_TYPES.includes(credential)) {
      check.fail(`metadata.labels.${CREDENTIAL_LABEL} must be one of ${CREDENTIAL_TYPES.join(', ')}`);
    }
  }
}

function checkTenantSpec(check: Checker, spec: Fields, name: unknown): void {
  if (check.present(spec.displayName, 'spec.displayName'))
    check.nonEmptyString(spec.displayName, 'spec.displayName');
  if (spec.parentRef !== undefined) {
    if (!isObject(spec.parentRef)) check.fail('spec.parentRef must be an object');
    else if (check.present(spec.parentRef.name, 'spec.parentRef.name')) {
      check.dnsLabel(spec.parentRef.name, 'spec.parentRef.name', MAX_TENANT_NAME);
      if (spec.parentRef.name === name) check.fail('spec.parentRef.name must not name the tenant itself');
    }
  }
  check.nonEmptyString(spec.region, 'spec.region');
  if (spec.billingMode === 'pooled') {
    check.fail("spec.billingMode 'pooled' is not implemented: use 'delegated'");
  } else if (spec.billingMode !== undefined && spec.billingMode !== 'delegated') {
    check.fail('spec.billingMode must be delegated');
  }
  // The referral is never repeated in a message (it is never logged).
  if (
    spec.referral !== undefined &&
    (typeof spec.referral !== 'string' || !REFERRAL_PATTERN.test(spec.referral))
  )
    check.fail('spec.referral must be at most 64 of a-z 0-9 . _ -');
  if (spec.slug !== undefined) {
    check.string(spec.slug, 'spec.slug', TENANT_SLUG_PATTERN, 'be a slug of at most 56 of a-z 0-9 and -');
  }
  if (spec.contactEmail !== undefined) {
    const email = spec.contactEmail;
    if (typeof email !== 'string' || email.length > 254 || !EMAIL_PATTERN.test(email))
      check.fail('spec.contactEmail must be an e-mail address');
  }
  check.boolean(spec.suspended, 'spec.suspended');
  check.boolean(spec.strictByok, 'spec.strictByok');
  if (!check.present(spec.workspaces, 'spec.workspaces')) return;
  if (!Array.isArray(spec.workspaces)) {
    check.fail('spec.workspaces must be a list');
    return;
  }
  const seen = new Set<unknown>();
  spec.workspaces.forEach((workspace: unknown, index) => {
    const path = `spec.workspaces[${index}]`;
    if (!isObject(workspace)) {
      check.fail(`${path} must be an object with id and name`);
      return;
    }
    if (check.present(workspace.id, `${path}.id`)) check.slug(workspace.id, `${path}.id`);
    if (check.present(workspace.name, `${path}.name`)) check.nonEmptyString(workspace.name, `${path}.name`);
    if (seen.has(workspace.id)) check.fail(`spec.workspaces ids must be unique: '${workspace.id}' repeats`);
    seen.add(workspace.id);
  });
}

function checkCachePolicySpec(check: Checker, spec: Fields): void {
  check.slug(spec.policyName, 'spec.policyName');
  check.slug(spec.workspace, 'spec.workspace');
  const ttl = check.integer(spec.ttlSeconds, 'spec.ttlSeconds', 1, MAX_TTL_SECONDS);
  const maxTtl = check.integer(spec.maxTtlSeconds, 'spec.maxTtlSeconds', 1, MAX_TTL_SECONDS);
  check.integer(spec.swrSeconds, 'spec.swrSeconds', 0, MAX_TTL_SECONDS);
  if (ttl && maxTtl && (spec.ttlSeconds as number) > (spec.maxTtlSeconds as number)) {
    check.fail('spec.ttlSeconds must be <= spec.maxTtlSeconds');
  }
  check.boolean(spec.semantic, 'spec.semantic');
  if (spec.defaultTags === undefined) return;
  if (!Array.isArray(spec.defaultTags)) {
    check.fail('spec.defaultTags must be a list');
    return;
  }
  if (spec.defaultTags.length > MAX_DEFAULT_TAGS) {
    check.fail(`spec.defaultTags must have at most ${MAX_DEFAULT_TAGS} entries`);
  }
  spec.defaultTags.forEach((tag: unknown, index) => {
    const rule = 'be a tag (lowercase letters, digits, . _ - :, starting with a letter or digit)';
    check.string(tag, `spec.defaultTags[${index}]`, TAG_PATTERN, rule);
  });
}

function checkBaseUrl(check: Checker, value: unknown): void {
  if (!check.string(value, 'spec.baseUrl')) return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    check.fail(`spec.baseUrl must be an http or https URL, got '${value}'`);
  }
}

function checkConnectionSpec(check: Checker, spec: Fields): void {
  if (check.present(spec.provider, 'spec.provider')) {
    if (!(PROVIDER_KINDS as readonly unknown[]).includes(spec.provider)) {
      check.fail(`spec.provider must be one of ${PROVIDER_KINDS.join(', ')}`);
    }
  }
  check.slug(spec.slug, 'spec.slug');
  check.slug(spec.label, 'spec.label');
  if (check.present(spec.secretRef, 'spec.secretRef')) {
    if (!isObject(spec.secretRef)) check.fail('spec.secretRef must be an object with a name');
    else if (check.present(spec.secretRef.name, 'spec.secretRef.name')) {
      check.dnsSubdomain(spec.secretRef.name, 'spec.secretRef.name');
    }
  }
  checkBaseUrl(check, spec.baseUrl);
  if (spec.provider === 'openai-compatible' && spec.baseUrl === undefined) {
    check.fail('spec.baseUrl is required when spec.provider is openai-compatible');
  }
  const region = 'be a region name (lowercase letters, digits and -)';
  check.string(spec.awsRegion, 'spec.awsRegion', /^[a-z0-9-]{1,63}$/, region);
  check.string(spec.vertexRegion, 'spec.vertexRegion', /^[a-z0-9-]{1,63}$/, region);
  check.nonEmptyString(spec.vertexProject, 'spec.vertexProject');
  check.slug(spec.workspace, 'spec.workspace');
  check.nonEmptyString(spec.defaultModel, 'spec.defaultModel');
  check.integer(spec.dailyCapMicros, 'spec.dailyCapMicros', 0, Number.MAX_SAFE_INTEGER);
}

function checkSecretBody(check: Checker, resource: Fields): void {
  check.string(resource.type, 'type');
  for (const field of ['data', 'stringData'] as const) {
    if (!check.stringMap(resource[field], field)) continue;
    for (const [key, value] of Object.entries(resource[field])) {
      if (!SECRET_KEY_PATTERN.test(key))
        check.fail(`${field} key '${key}' must be made of A-Z a-z 0-9 - _ .`);
      if (field === 'data' && typeof value === 'string' && !BASE64_PATTERN.test(value)) {
        check.fail(`data.${key} must be base64 (use stringData for plain values)`);
      }
    }
  }
}

/** Rules on a change (the CRD's transition rules): what an update may not do to the object. */
function checkTransition(check: Checker, kind: ResourceKind, spec: Fields, previous: Fields): void {
  if (kind !== 'Tenant') return;
  if (spec.referral !== previous.referral) {
    check.fail('spec.referral is set once, at creation, and never changed');
  }
}

/**
 * Every rule the object breaks, as messages; empty when it is valid. With `previous` (the object
 * it replaces) the transition rules apply too.
 */
export function validateResource(resource: unknown, previous?: unknown): string[] {
  const check = new Checker();
  if (!isObject(resource)) return ['the resource must be an object'];
  const kind = resource.kind;
  if (!(RESOURCE_KINDS as readonly unknown[]).includes(kind)) {
    return [`kind must be one of ${RESOURCE_KINDS.join(', ')}, got '${String(kind)}'`];
  }
  const resourceKind = kind as ResourceKind;
  const apiVersion = resourceKind === 'Secret' ? 'v1' : API_VERSION;
  if (resource.apiVersion !== apiVersion) check.fail(`apiVersion of a ${resourceKind} must be ${apiVersion}`);
  checkMetadata(check, resourceKind, resource.metadata);
  if (resourceKind === 'Secret') {
    checkSecretBody(check, resource);
    return check.messages;
  }
  if (!check.present(resource.spec, 'spec')) return check.messages;
  if (!isObject(resource.spec)) {
    check.fail('spec must be an object');
    return check.messages;
  }
  const name = isObject(resource.metadata) ? resource.metadata.name : undefined;
  if (resourceKind === 'Tenant') checkTenantSpec(check, resource.spec, name);
  else if (resourceKind === 'CachePolicy') checkCachePolicySpec(check, resource.spec);
  else if (resourceKind === 'ModelRoute') checkModelRouteSpec(check, resource.spec);
  else checkConnectionSpec(check, resource.spec);
  if (isObject(previous) && isObject(previous.spec)) {
    checkTransition(check, resourceKind, resource.spec, previous.spec);
  }
  return check.messages;
}
