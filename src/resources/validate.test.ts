import { describe, expect, it } from 'vitest';
import { API_VERSION, CREDENTIAL_LABEL } from './types.ts';
import { validateResource } from './validate.ts';

type Fields = Record<string, unknown>;

const tenant = (spec: Fields = {}, metadata: Fields = {}): Fields => ({
  apiVersion: API_VERSION,
  kind: 'Tenant',
  metadata: { name: 'acme', ...metadata },
  spec: { displayName: 'Acme', workspaces: [{ id: 'main', name: 'Main' }], ...spec },
});

const cachePolicy = (spec: Fields = {}, metadata: Fields = {}): Fields => ({
  apiVersion: API_VERSION,
  kind: 'CachePolicy',
  metadata: { name: 'default', namespace: 'tenant-acme', ...metadata },
  spec,
});

const connection = (spec: Fields = {}, metadata: Fields = {}): Fields => ({
  apiVersion: API_VERSION,
  kind: 'Connection',
  metadata: { name: 'openai-main', namespace: 'tenant-acme', ...metadata },
  spec: { provider: 'openai', secretRef: { name: 'openai-key' }, ...spec },
});

const secret = (body: Fields = {}, metadata: Fields = {}): Fields => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'openai-key', namespace: 'tenant-acme', ...metadata },
  stringData: { apiKey: 'sk-test' },
  ...body,
});

describe('validateResource', () => {
  it.each([
    ['a tenant', tenant()],
    [
      'a tenant with every field',
      tenant({
        parentRef: { name: 'parent' },
        region: 'eu',
        billingMode: 'delegated',
        referral: 'ref.1',
        strictByok: true,
      }),
    ],
    ['a cache policy with defaults', cachePolicy()],
    [
      'a cache policy with every field',
      cachePolicy({
        policyName: 'docs',
        workspace: 'main',
        ttlSeconds: 60,
        swrSeconds: 0,
        maxTtlSeconds: 60,
        defaultTags: ['docs:v1', 'a.b_c-d'],
        semantic: true,
      }),
    ],
    [
      'a connection',
      connection({ slug: 'my-openai', baseUrl: 'https://api.example.com/v1', dailyCapMicros: 0 }),
    ],
    [
      'an openai-compatible connection with a base URL',
      connection({ provider: 'openai-compatible', baseUrl: 'http://localhost:11434/v1' }),
    ],
    [
      'a secret',
      secret(
        { data: { hash: Buffer.from('x').toString('base64') } },
        { labels: { [CREDENTIAL_LABEL]: 'api-key' } },
      ),
    ],
    ['a secret with a dotted name', secret({}, { name: 'key.v2' })],
  ])('accepts %s', (_label, resource) => {
    expect(validateResource(resource)).toEqual([]);
  });

  it.each([
    ['not an object', 'Tenant', 'the resource must be an object'],
    [
      'an unknown kind',
      { ...tenant(), kind: 'Pod' },
      "kind must be one of Tenant, CachePolicy, Connection, ModelRoute, Secret, got 'Pod'",
    ],
    [
      'a wrong apiVersion',
      { ...tenant(), apiVersion: 'v1' },
      `apiVersion of a Tenant must be ${API_VERSION}`,
    ],
    [
      'a Secret with a CRD apiVersion',
      { ...secret(), apiVersion: API_VERSION },
      'apiVersion of a Secret must be v1',
    ],
    ['no metadata', { ...tenant(), metadata: undefined }, 'metadata is required'],
    ['no name', tenant({}, { name: undefined }), 'metadata.name is required'],
    ['an upper-case name', tenant({}, { name: 'Acme' }), 'metadata.name must be a DNS-1123 label'],
    ['a name ending in -', cachePolicy({}, { name: 'docs-' }), 'metadata.name must be a DNS-1123 label'],
    [
      'a tenant name too long for its namespace',
      tenant({}, { name: 'a'.repeat(57) }),
      'metadata.name must be at most 56 characters',
    ],
    [
      'a namespaced tenant',
      tenant({}, { namespace: 'default' }),
      'metadata.namespace must be empty: Tenant is cluster-scoped',
    ],
    [
      'a cache policy without namespace',
      cachePolicy({}, { namespace: undefined }),
      'metadata.namespace is required: CachePolicy is namespaced',
    ],
    [
      'a connection without namespace',
      connection({}, { namespace: '' }),
      'metadata.namespace is required: Connection is namespaced',
    ],
    [
      'a bad label value',
      tenant({}, { labels: { team: 'has space' } }),
      'metadata.labels.team must be a valid label value',
    ],
    ['no spec', { ...tenant(), spec: undefined }, 'spec is required'],
    ['no displayName', tenant({ displayName: undefined }), 'spec.displayName is required'],
    ['an empty displayName', tenant({ displayName: ' ' }), 'spec.displayName must not be empty'],
    ['pooled billing', tenant({ billingMode: 'pooled' }), "spec.billingMode 'pooled' is not implemented"],
    ['an unknown billing mode', tenant({ billingMode: 'prepaid' }), 'spec.billingMode must be delegated'],
    [
      'a parent that is itself',
      tenant({ parentRef: { name: 'acme' } }),
      'spec.parentRef.name must not name the tenant itself',
    ],
    [
      'a bad referral',
      tenant({ referral: 'Not Valid' }),
      'spec.referral must be at most 64 of a-z 0-9 . _ -',
    ],
    ['a non-boolean strictByok', tenant({ strictByok: 'yes' }), 'spec.strictByok must be a boolean'],
    ['no workspaces', tenant({ workspaces: undefined }), 'spec.workspaces is required'],
    [
      'a bad workspace id',
      tenant({ workspaces: [{ id: 'Main', name: 'Main' }] }),
      'spec.workspaces[0].id must match',
    ],
    [
      'a workspace without name',
      tenant({ workspaces: [{ id: 'main' }] }),
      'spec.workspaces[0].name is required',
    ],
    [
      'repeated workspace ids',
      tenant({
        workspaces: [
          { id: 'main', name: 'A' },
          { id: 'main', name: 'B' },
        ],
      }),
      "spec.workspaces ids must be unique: 'main' repeats",
    ],
    ['ttlSeconds 0', cachePolicy({ ttlSeconds: 0 }), 'spec.ttlSeconds must be between 1 and 86400, got 0'],
    [
      'ttlSeconds above a day',
      cachePolicy({ ttlSeconds: 86_401 }),
      'spec.ttlSeconds must be between 1 and 86400',
    ],
    ['a fractional ttlSeconds', cachePolicy({ ttlSeconds: 1.5 }), 'spec.ttlSeconds must be an integer'],
    ['maxTtlSeconds 0', cachePolicy({ maxTtlSeconds: 0 }), 'spec.maxTtlSeconds must be between 1 and 86400'],
    ['a negative swrSeconds', cachePolicy({ swrSeconds: -1 }), 'spec.swrSeconds must be between 0 and 86400'],
    [
      'ttlSeconds above maxTtlSeconds',
      cachePolicy({ ttlSeconds: 600, maxTtlSeconds: 60 }),
      'spec.ttlSeconds must be <= spec.maxTtlSeconds',
    ],
    ['a bad policy name', cachePolicy({ policyName: 'Docs' }), 'spec.policyName must match'],
    ['a bad policy workspace', cachePolicy({ workspace: '-main' }), 'spec.workspace must match'],
    ['an upper-case tag', cachePolicy({ defaultTags: ['Docs'] }), 'spec.defaultTags[0] must be a tag'],
    [
      'a tag starting with a dot',
      cachePolicy({ defaultTags: ['.docs'] }),
      'spec.defaultTags[0] must be a tag',
    ],
    ['a tag with a slash', cachePolicy({ defaultTags: ['docs/v1'] }), 'spec.defaultTags[0] must be a tag'],
    [
      'seventeen tags',
      cachePolicy({ defaultTags: Array.from({ length: 17 }, (_, index) => `t${index}`) }),
      'spec.defaultTags must have at most 16 entries',
    ],
    ['a non-boolean semantic', cachePolicy({ semantic: 1 }), 'spec.semantic must be a boolean'],
    [
      'an unknown provider',
      connection({ provider: 'azure' }),
      'spec.provider must be one of openai, anthropic, gemini',
    ],
    ['no provider', connection({ provider: undefined }), 'spec.provider is required'],
    ['no secretRef', connection({ secretRef: undefined }), 'spec.secretRef is required'],
    ['a secretRef without name', connection({ secretRef: {} }), 'spec.secretRef.name is required'],
    ['a bad slug', connection({ slug: 'My_Slug' }), 'spec.slug must match'],
    ['a slug over 63 characters', connection({ slug: 'a'.repeat(64) }), 'spec.slug must match'],
    ['a bad label', connection({ label: '@main' }), 'spec.label must match'],
    [
      'a non-http baseUrl',
      connection({ baseUrl: 'ftp://example.com' }),
      'spec.baseUrl must be an http or https URL',
    ],
    [
      'a baseUrl that is no URL',
      connection({ baseUrl: 'example' }),
      'spec.baseUrl must be an http or https URL',
    ],
    [
      'openai-compatible without baseUrl',
      connection({ provider: 'openai-compatible' }),
      'spec.baseUrl is required when spec.provider is openai-compatible',
    ],
    ['a bad awsRegion', connection({ awsRegion: 'US East' }), 'spec.awsRegion must be a region name'],
    ['a negative daily cap', connection({ dailyCapMicros: -1 }), 'spec.dailyCapMicros must be between 0 and'],
    [
      'a secret without namespace',
      secret({}, { namespace: undefined }),
      'metadata.namespace is required: Secret is namespaced',
    ],
    [
      'secret data that is not base64',
      secret({ data: { apiKey: 'sk-plain!' } }),
      'data.apiKey must be base64',
    ],
    [
      'a secret key with a slash',
      secret({ stringData: { 'a/b': 'x' } }),
      "stringData key 'a/b' must be made of",
    ],
    ['a non-string secret value', secret({ stringData: { port: 5 } }), 'stringData.port must be a string'],
    [
      'an unknown credential label',
      secret({}, { labels: { [CREDENTIAL_LABEL]: 'password' } }),
      `metadata.labels.${CREDENTIAL_LABEL} must be one of api-key, pat, provisioning-key`,
    ],
  ])('refuses %s', (_label, resource, expected) => {
    const messages = validateResource(resource);
    expect(
      messages.some((message) => message.startsWith(expected)),
      messages.join('\n'),
    ).toBe(true);
  });

  it('reports every broken rule at once', () => {
    const messages = validateResource(cachePolicy({ ttlSeconds: 0, swrSeconds: -1, defaultTags: ['X'] }));
    expect(messages).toHaveLength(3);
  });
});
