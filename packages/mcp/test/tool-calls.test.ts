import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, READS } from '../src/index.ts';
import { ADMIN_PAT, type Connected, connect, PAT, PROVISIONING_KEY, textOf } from './connect.ts';
import { TYPICAL } from './fake-control-plane.ts';

let connected: Connected;
beforeAll(async () => {
  connected = await connect({ admin: true, provisioning: true });
});
afterAll(async () => {
  await connected.close();
});

/** Each tool: the arguments, the operation it sends, and the variables (or REST body) it sends. */
const CASES: [string, Record<string, unknown>, string, Record<string, unknown>][] = [
  ['list_connections', {}, 'ProviderCredentials', {}],
  ['list_connections', { workspaceId: 'research' }, 'ProviderCredentials', { workspaceId: 'research' }],
  [
    'upsert_connection',
    {
      provider: 'bedrock-mantle',
      slug: '@aws',
      awsAccessKeyId: 'AKIA1',
      awsSecretAccessKey: 's3cret-aws',
      awsRegion: 'us-east-1',
    },
    'UpsertProviderCredential',
    {
      provider: 'bedrockMantle',
      slug: '@aws',
      awsAccessKeyId: 'AKIA1',
      awsSecretAccessKey: 's3cret-aws',
      awsRegion: 'us-east-1',
    },
  ],
  [
    'upsert_connection',
    { provider: 'openai', label: 'legacy', dailyCapMicros: null, defaultModel: null },
    'UpsertProviderCredential',
    { provider: 'openai', label: 'legacy', dailyCapMicros: null, defaultModel: null },
  ],
  ['test_connection', { slug: 'my-openai' }, 'TestProviderCredential', { slug: 'my-openai' }],
  ['revoke_connection', { slug: '@my-openai' }, 'RevokeProviderCredential', { slug: '@my-openai' }],
  ['provider_availability', {}, 'ProviderAvailability', { workspaceId: 'default' }],
  [
    'mint_ephemeral_token',
    {
      parentKeyId: 'key_1',
      scopes: ['chat', 'model:gpt-4o-mini'],
      ttlSeconds: 600,
      budgetUsd: '0.5',
      requestsPerMinute: 30,
    },
    'MintEphemeralToken',
    {
      input: {
        parentKeyId: 'key_1',
        scopes: ['chat', 'model:gpt-4o-mini'],
        ttlSeconds: 600,
        budgetMicros: 500_000,
        rateLimits: { requestsPerMinute: 30 },
      },
    },
  ],
  ['revoke_ephemeral_token', { jti: 'jti_1' }, 'RevokeEphemeralToken', { jti: 'jti_1' }],
  [
    'revoke_tokens_for_key',
    { parentKeyId: 'key_1' },
    'RevokeEphemeralTokensForKey',
    { parentKeyId: 'key_1' },
  ],
  ['purge_cache', {}, 'PurgeGatewayCache', { workspaceId: 'default' }],
  [
    'purge_cache',
    { workspaceId: 'w', namespace: 'user-1' },
    'PurgeGatewayCache',
    { workspaceId: 'w', namespace: 'user-1' },
  ],
  [
    'revalidate_cache_tags',
    { tags: ['doc:1'] },
    'RevalidateCacheTags',
    { workspaceId: 'default', tags: ['doc:1'] },
  ],
  ['list_cache_policies', { workspaceId: 'default' }, 'CachePolicies', { workspaceId: 'default' }],
  [
    'upsert_cache_policy',
    { name: 'docs', workspaceId: 'default', ttlSeconds: 600, semantic: true },
    'UpsertCachePolicy',
    { input: { name: 'docs', workspaceId: 'default', ttlSeconds: 600, semantic: true } },
  ],
  ['delete_cache_policy', { name: 'docs' }, 'DeleteCachePolicy', { name: 'docs' }],
  ['list_model_routes', {}, 'ModelRoutes', {}],
  [
    'upsert_model_route',
    {
      model: 'chat-default',
      strategy: 'leastBusy',
      targets: [
        { model: 'openai/gpt-4o-mini', weight: 3 },
        { model: 'anthropic/x', priority: 1 },
      ],
      retry: { maxAttempts: 2, on: ['timeout'] },
    },
    'UpsertModelRoute',
    {
      input: {
        model: 'chat-default',
        strategy: 'leastBusy',
        targets: [
          { model: 'openai/gpt-4o-mini', weight: 3 },
          { model: 'anthropic/x', priority: 1 },
        ],
        retry: { maxAttempts: 2, on: ['timeout'] },
      },
    },
  ],
  [
    'delete_model_route',
    { model: 'chat-default', workspaceId: 'research' },
    'DeleteModelRoute',
    { model: 'chat-default', workspaceId: 'research' },
  ],
  ['get_tenant', { withBalances: true }, 'Tenant', { withBalances: true }],
  ['list_workspaces', {}, 'Workspaces', {}],
  ['create_workspace', { name: 'Research' }, 'CreateWorkspace', { name: 'Research' }],
  ['list_api_keys', {}, 'ApiKeys', {}],
  [
    'create_api_key',
    { grants: ['chat:write'] },
    'CreateApiKey',
    { workspaceId: 'default', grants: ['chat:write'] },
  ],
  ['revoke_api_key', { id: 'key_1' }, 'RevokeApiKey', { id: 'key_1' }],
  ['get_balance', {}, 'Balance', {}],
  [
    'create_organization',
    { name: 'Acme Labs', email: 'owner@acme.example', referral: 'partner.x' },
    'POST /auth/org/create',
    { name: 'Acme Labs', email: 'owner@acme.example', referral: 'partner.x' },
  ],
  [
    'provision_tenant',
    { name: 'Customer', region: 'eu-west-1' },
    'POST /provision/tenant',
    { name: 'Customer', region: 'eu-west-1' },
  ],
  [
    'list_organizations',
    { topLevelOnly: true, limit: 10 },
    'AdminOrganizations',
    { topLevelOnly: true, limit: 10 },
  ],
  ['get_organization', { slug: 'acme-labs' }, 'AdminOrganization', { slug: 'acme-labs' }],
  [
    'suspend_tenant',
    { id: 'acme-labs', reason: 'unpaid' },
    'AdminSuspendTenant',
    { id: 'acme-labs', reason: 'unpaid' },
  ],
  ['resume_tenant', { id: 'acme-labs' }, 'AdminResumeTenant', { id: 'acme-labs' }],
  [
    'top_up_balance',
    { tenantId: 'acme-labs', amountUsd: '20' },
    'AdminTopUpBalance',
    { tenantId: 'acme-labs', amountMicros: 20_000_000 },
  ],
];

describe('tools/call', () => {
  it.each(CASES)('%s %j sends %s with its arguments', async (tool, args, operation, variables) => {
    const result = await connected.call(tool, args);
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(connected.fake.last(operation).variables).toEqual(variables);
    expect(textOf(result)).not.toBe('');
    expect(result.structuredContent).toBeDefined();
    expect(JSON.parse((result.content[1] as { text: string }).text)).toEqual(result.structuredContent);
  });

  it('covers every listed tool', async () => {
    const listed = (await connected.client.listTools()).tools.map((tool) => tool.name);
    expect(new Set(CASES.map(([tool]) => tool))).toEqual(new Set(listed));
  });

  it('summarises a model route by tier and refuses an unknown retry condition before calling the service', async () => {
    const listed = await connected.call('list_model_routes', {});
    expect(textOf(listed)).toContain(
      '1 model route(s): chat-default (tenant-wide, weighted): p0 openai/gpt-4o-mini×3; p1 anthropic/claude-3-5-haiku-latest×1; 3 attempt(s).',
    );
    const before = connected.fake.calls.length;
    const refused = await connected.call('upsert_model_route', {
      model: 'x',
      targets: [{ model: 'openai/a' }],
      retry: { on: ['always'] },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^VALIDATION_ERROR: .*retry\.on/);
    expect(connected.fake.calls.length).toBe(before);
  });

  it('converts dailyCapUsd "2.5" to dailyCapMicros 2500000 in the request', async () => {
    await connected.call('upsert_connection', {
      provider: 'openai',
      slug: 'my-openai',
      apiKey: 'sk-x-123456',
      dailyCapUsd: '2.5',
    });
    expect(connected.fake.last('UpsertProviderCredential').variables).toEqual({
      provider: 'openai',
      slug: 'my-openai',
      apiKey: 'sk-x-123456',
      dailyCapMicros: 2_500_000,
    });
  });

  it('removes the cap with dailyCapUsd null', async () => {
    await connected.call('upsert_connection', { provider: 'openai', slug: 'my-openai', dailyCapUsd: null });
    expect(connected.fake.last('UpsertProviderCredential').variables).toEqual({
      provider: 'openai',
      slug: 'my-openai',
      dailyCapMicros: null,
    });
  });

  it('returns the Connection with its slug and keyHint as structured content', async () => {
    const result = await connected.call('upsert_connection', {
      provider: 'openai',
      slug: 'my-openai',
      apiKey: 'sk-x-123456',
    });
    expect(result.structuredContent).toEqual({
      connection: (TYPICAL.UpsertProviderCredential as { value: unknown }).value,
    });
    expect(textOf(result)).toMatch(/@my-openai \(openai, key sk-…wxyz, daily cap \$2\.50, ready\)/);
  });

  it('sends the tenant PAT on /graphql, the admin PAT on /admin/graphql, the provisioning key on provisioning, nothing on sign-up', async () => {
    await connected.call('get_balance');
    expect(connected.fake.last('Balance')).toMatchObject({
      path: '/graphql',
      headers: { authorization: `Bearer ${PAT}` },
    });
    await connected.call('get_organization', { slug: 'acme-labs' });
    expect(connected.fake.last('AdminOrganization')).toMatchObject({
      path: '/admin/graphql',
      headers: { authorization: `Bearer ${ADMIN_PAT}` },
    });
    await connected.call('provision_tenant', { name: 'Customer', idempotencyKey: 'signup-1' });
    expect(connected.fake.last('POST /provision/tenant').headers).toMatchObject({
      authorization: `Bearer ${PROVISIONING_KEY}`,
      'idempotency-key': 'signup-1',
    });
    await connected.call('create_organization', { name: 'Acme Labs', email: 'owner@acme.example' });
    expect(connected.fake.last('POST /auth/org/create').headers.authorization).toBeUndefined();
  });

  it('returns the organisation with its referral and the owner PAT once', async () => {
    const result = await connected.call('create_organization', {
      name: 'Acme Labs',
      email: 'owner@acme.example',
      slug: 'acme-labs',
      referral: 'partner.x',
    });
    expect(result.structuredContent).toMatchObject({
      organization: { slug: 'acme-labs', referral: 'partner.x' },
      pat: { id: 'pat_owner', token: 'tt_pat_owner-new' },
    });
    expect(textOf(result)).toMatch(/referral partner\.x/);
  });

  it('answers get_organization of an unknown slug with organization null', async () => {
    connected.fake.answer('AdminOrganization', { value: null });
    const result: CallToolResult = await connected.call('get_organization', { slug: 'nobody' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ organization: null });
    connected.fake.answer('AdminOrganization', TYPICAL.AdminOrganization!);
  });

  it('calls tools added later with registerTools, through the same coded-error path', async () => {
    const echo = defineTool({
      name: 'echo_upper',
      title: 'Echo in upper case',
      description: 'Returns the text in upper case.',
      input: { text: z.string() },
      output: { text: z.string() },
      annotations: READS,
      run: async ({ text }) => ({ summary: text.toUpperCase(), result: { text: text.toUpperCase() } }),
    });
    const { client, server, close } = await connect({ extraTools: [echo] });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo_upper');
    await expect(client.callTool({ name: 'echo_upper', arguments: { text: 'hi' } })).resolves.toMatchObject({
      structuredContent: { text: 'HI' },
    });
    await expect(client.callTool({ name: 'echo_upper', arguments: { text: 1 } })).resolves.toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'VALIDATION_ERROR', fields: ['text'] } },
    });
    expect(server.isConnected()).toBe(true);
    await close();
  });
});
