import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AdminClient,
  CONTROL_PLANE_DOCUMENTS,
  type ControlPlaneOperations,
  type UpsertConnectionInput,
  upsertConnectionVariables,
  WorkspacesDocument,
} from '../src/index.ts';
import { data, fakeFetch } from './fake-fetch.ts';

const URL = 'http://control.test:8081';
const PAT = 'tt_pat_unit-test-secret-0123456789';

function clientWith(...answers: Parameters<typeof fakeFetch>) {
  const fake = fakeFetch(...answers);
  return { fake, client: new AdminClient({ url: `${URL}/`, token: PAT, fetch: fake.fetch }) };
}

type Call = (client: AdminClient) => Promise<unknown>;

/** Each method: how it is called, the operation it sends, its variables, and the root field it unwraps. */
const CASES: [string, Call, string, Record<string, unknown>, string][] = [
  ['getTenant', (c) => c.getTenant(), 'Tenant', { withBalances: false }, 'tenant'],
  [
    'getTenant with balances',
    (c) => c.getTenant({ withBalances: true }),
    'Tenant',
    { withBalances: true },
    'tenant',
  ],
  ['listWorkspaces', (c) => c.listWorkspaces(), 'Workspaces', {}, 'workspaces'],
  [
    'createWorkspace',
    (c) => c.createWorkspace({ name: 'Research' }),
    'CreateWorkspace',
    { name: 'Research' },
    'createWorkspace',
  ],
  [
    'renameWorkspace',
    (c) => c.renameWorkspace({ id: 'r', name: 'R&D' }),
    'RenameWorkspace',
    { id: 'r', name: 'R&D' },
    'renameWorkspace',
  ],
  ['getBalance', (c) => c.getBalance(), 'Balance', {}, 'balance'],
  ['listAuditLog', (c) => c.listAuditLog({ limit: 5 }), 'AuditLog', { limit: 5 }, 'auditLog'],
  [
    'usage',
    (c) => c.usage({ workspaceId: 'w1', from: '2026-11-01', to: '2026-11-30', groupBy: ['MODEL'] }),
    'Usage',
    { workspaceId: 'w1', from: '2026-11-01', to: '2026-11-30', groupBy: ['MODEL'] },
    'usage',
  ],
  [
    'mintEphemeralToken',
    (c) =>
      c.mintEphemeralToken({
        parentKeyId: 'key_1',
        scopes: ['chat', 'model:gpt-4o'],
        ttlSeconds: 600,
        budgetMicros: 5,
      }),
    'MintEphemeralToken',
    { input: { parentKeyId: 'key_1', scopes: ['chat', 'model:gpt-4o'], ttlSeconds: 600, budgetMicros: 5 } },
    'mintEphemeralToken',
  ],
  [
    'revokeEphemeralToken',
    (c) => c.revokeEphemeralToken('jti_1'),
    'RevokeEphemeralToken',
    { jti: 'jti_1' },
    'revokeEphemeralToken',
  ],
  [
    'revokeEphemeralTokensForKey',
    (c) => c.revokeEphemeralTokensForKey('key_1'),
    'RevokeEphemeralTokensForKey',
    { parentKeyId: 'key_1' },
    'revokeEphemeralTokensForKey',
  ],
  [
    'listApiKeys',
    (c) => c.listApiKeys({ workspaceId: 'default' }),
    'ApiKeys',
    { workspaceId: 'default' },
    'apiKeys',
  ],
  [
    'createApiKey',
    (c) => c.createApiKey({ workspaceId: 'default' }),
    'CreateApiKey',
    { workspaceId: 'default' },
    'createApiKey',
  ],
  [
    'createApiKey with grants',
    (c) => c.createApiKey({ workspaceId: 'default', grants: ['embed'] }),
    'CreateApiKey',
    { workspaceId: 'default', grants: ['embed'] },
    'createApiKey',
  ],
  ['revokeApiKey', (c) => c.revokeApiKey('key_2'), 'RevokeApiKey', { id: 'key_2' }, 'revokeApiKey'],
  ['listPats', (c) => c.listPats(), 'Pats', {}, 'pats'],
  [
    'createPat',
    (c) => c.createPat({ permissions: ['tokens:mint'], name: 'ci' }),
    'CreatePat',
    { permissions: ['tokens:mint'], name: 'ci' },
    'createPat',
  ],
  ['revokePat', (c) => c.revokePat('pat_1'), 'RevokePat', { id: 'pat_1' }, 'revokePat'],
  ['listProvisioningKeys', (c) => c.listProvisioningKeys(), 'ProvisioningKeys', {}, 'provisioningKeys'],
  [
    'createProvisioningKey',
    (c) => c.createProvisioningKey({ name: 'signup' }),
    'CreateProvisioningKey',
    { name: 'signup' },
    'createProvisioningKey',
  ],
  [
    'revokeProvisioningKey',
    (c) => c.revokeProvisioningKey('prov_1'),
    'RevokeProvisioningKey',
    { id: 'prov_1' },
    'revokeProvisioningKey',
  ],
  [
    'purgeCache',
    (c) => c.purgeCache({ workspaceId: 'default' }),
    'PurgeGatewayCache',
    { workspaceId: 'default' },
    'purgeGatewayCache',
  ],
  [
    'purgeCache of a namespace',
    (c) => c.purgeCache({ workspaceId: 'default', namespace: 'user-42' }),
    'PurgeGatewayCache',
    { workspaceId: 'default', namespace: 'user-42' },
    'purgeGatewayCache',
  ],
  [
    'revalidateCacheTags',
    (c) => c.revalidateCacheTags({ workspaceId: 'default', tags: ['doc:1', 'doc:2'] }),
    'RevalidateCacheTags',
    { workspaceId: 'default', tags: ['doc:1', 'doc:2'] },
    'revalidateCacheTags',
  ],
  ['listCachePolicies', (c) => c.listCachePolicies(), 'CachePolicies', {}, 'cachePolicies'],
  [
    'upsertCachePolicy',
    (c) => c.upsertCachePolicy({ name: 'docs', ttlSeconds: 60, semantic: true }),
    'UpsertCachePolicy',
    { input: { name: 'docs', ttlSeconds: 60, semantic: true } },
    'upsertCachePolicy',
  ],
  [
    'deleteCachePolicy',
    (c) => c.deleteCachePolicy({ name: 'docs' }),
    'DeleteCachePolicy',
    { name: 'docs' },
    'deleteCachePolicy',
  ],
  [
    'listModelRoutes',
    (c) => c.listModelRoutes({ workspaceId: 'default' }),
    'ModelRoutes',
    { workspaceId: 'default' },
    'modelRoutes',
  ],
  [
    'upsertModelRoute',
    (c) =>
      c.upsertModelRoute({
        model: 'chat',
        targets: [{ model: 'openai/gpt-4o', weight: 3 }],
        retry: { on: ['timeout'] },
      }),
    'UpsertModelRoute',
    {
      input: { model: 'chat', targets: [{ model: 'openai/gpt-4o', weight: 3 }], retry: { on: ['timeout'] } },
    },
    'upsertModelRoute',
  ],
  [
    'deleteModelRoute',
    (c) => c.deleteModelRoute({ model: 'chat' }),
    'DeleteModelRoute',
    { model: 'chat' },
    'deleteModelRoute',
  ],
  ['listConnections', (c) => c.listConnections(), 'ProviderCredentials', {}, 'providerCredentials'],
  [
    'upsertConnection',
    (c) => c.upsertConnection({ provider: 'openai', slug: 'mine', apiKey: 'sk-x' }),
    'UpsertProviderCredential',
    { provider: 'openai', slug: 'mine', apiKey: 'sk-x' },
    'upsertProviderCredential',
  ],
  [
    'testConnection',
    (c) => c.testConnection('mine'),
    'TestProviderCredential',
    { slug: 'mine' },
    'testProviderCredential',
  ],
  [
    'revokeConnection',
    (c) => c.revokeConnection('mine'),
    'RevokeProviderCredential',
    { slug: 'mine' },
    'revokeProviderCredential',
  ],
  [
    'getProviderAvailability',
    (c) => c.getProviderAvailability('default'),
    'ProviderAvailability',
    { workspaceId: 'default' },
    'providerAvailability',
  ],
];

describe('AdminClient GraphQL methods', () => {
  it.each(CASES)(
    '%s sends its operation with its variables and returns the root field',
    async (_name, call, operation, variables, field) => {
      const { fake, client } = clientWith(data({ [field]: { marker: operation } }));
      await expect(call(client)).resolves.toEqual({ marker: operation });
      const request = fake.last;
      expect(request.url).toBe(`${URL}/graphql`);
      expect(request.method).toBe('POST');
      expect(request.headers.authorization).toBe(`Bearer ${PAT}`);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.body.operationName).toBe(operation);
      expect(request.body.variables).toEqual(variables);
      const document = CONTROL_PLANE_DOCUMENTS.find((candidate) => candidate.operationName === operation);
      expect(request.body.query).toBe(document?.query);
    },
  );

  it('has a method for every /graphql document', () => {
    const covered = new Set(CASES.map((entry) => entry[2]));
    expect(
      CONTROL_PLANE_DOCUMENTS.map((document) => document.operationName).filter((name) => !covered.has(name)),
    ).toEqual([]);
  });

  it('keeps a path prefix of the base URL', async () => {
    const fake = fakeFetch(data({ workspaces: [] }));
    await new AdminClient({
      url: 'https://example.test/igw/',
      token: PAT,
      fetch: fake.fetch,
    }).listWorkspaces();
    expect(fake.last.url).toBe('https://example.test/igw/graphql');
  });

  it('runs any typed document with execute and returns the whole data', async () => {
    const { fake, client } = clientWith(data({ workspaces: [{ id: 'a', name: 'A' }] }));
    await expect(client.execute(WorkspacesDocument, {})).resolves.toEqual({
      workspaces: [{ id: 'a', name: 'A' }],
    });
    expect(fake.last.body.operationName).toBe('Workspaces');
  });

  it('refuses a URL that is not absolute http(s) or carries credentials, and an empty token', () => {
    expect(() => new AdminClient({ url: 'control-plane:8081', token: PAT })).toThrow(TypeError);
    expect(() => new AdminClient({ url: 'ftp://x', token: PAT })).toThrow(TypeError);
    expect(() => new AdminClient({ url: 'http://user:password@control.test', token: PAT })).toThrow(
      TypeError,
    );
    expect(() => new AdminClient({ url: URL, token: ' ' })).toThrow(TypeError);
  });

  it('sends no Authorization header without a token (the server answers UNAUTHENTICATED)', async () => {
    const fake = fakeFetch(data({ workspaces: [] }));
    await new AdminClient({ url: URL, fetch: fake.fetch }).listWorkspaces();
    expect(fake.last.headers.authorization).toBeUndefined();
  });
});

describe('AdminClient.upsertConnection', () => {
  it.each([
    ['bedrock-mantle', 'bedrockMantle'],
    ['BEDROCK_MANTLE', 'bedrockMantle'],
    ['openai-compatible', 'openaiCompatible'],
    ['vertex', 'vertex'],
    ['Gemini', 'gemini'],
  ])('sends the friendly spelling %j as the enum value %j', (spelling, kind) => {
    expect(upsertConnectionVariables({ provider: spelling })).toEqual({ provider: kind });
  });

  it('needs a provider', () => {
    expect(() => upsertConnectionVariables({ provider: '' })).toThrow(TypeError);
    expect(() => upsertConnectionVariables({} as UpsertConnectionInput)).toThrow(TypeError);
  });

  it('sends an unknown provider as providerName, for the server to refuse with its list', () => {
    expect(upsertConnectionVariables({ provider: 'mistral' })).toEqual({ providerName: 'mistral' });
  });

  it('keeps explicit nulls (clear) apart from fields left out (keep)', async () => {
    const { fake, client } = clientWith(data({ upsertProviderCredential: {} }));
    await client.upsertConnection({
      provider: 'openai',
      slug: 'mine',
      apiKey: null,
      dailyCapMicros: 0,
      baseUrl: undefined,
    });
    expect(fake.last.body.variables).toEqual({
      provider: 'openai',
      slug: 'mine',
      apiKey: null,
      dailyCapMicros: 0,
    });
    expect(Object.hasOwn(fake.last.body.variables as object, 'baseUrl')).toBe(false);
  });

  it('carries the Bedrock, Vertex and Gemini fields', async () => {
    const { fake, client } = clientWith(data({ upsertProviderCredential: {} }));
    await client.upsertConnection({
      provider: 'bedrock',
      label: 'aws',
      awsAccessKeyId: 'AKIA0000',
      awsSecretAccessKey: 'secret',
      awsSessionToken: 'session',
      awsRegion: 'eu-west-1',
    });
    expect(fake.last.body.variables).toEqual({
      provider: 'bedrock',
      label: 'aws',
      awsAccessKeyId: 'AKIA0000',
      awsSecretAccessKey: 'secret',
      awsSessionToken: 'session',
      awsRegion: 'eu-west-1',
    });
    await client.upsertConnection({
      provider: 'vertex',
      gcpServiceAccountJson: '{"type":"service_account"}',
      vertexProject: 'proj',
      vertexRegion: 'us-central1',
      workspaceId: 'default',
      defaultModel: 'gemini-2.5-flash',
    });
    expect(fake.last.body.variables).toMatchObject({
      provider: 'vertex',
      vertexProject: 'proj',
      vertexRegion: 'us-central1',
    });
    await client.upsertConnection({ provider: 'gemini', apiKey: 'AIza', baseUrl: 'http://gemini.test' });
    expect(fake.last.body.variables).toEqual({
      provider: 'gemini',
      apiKey: 'AIza',
      baseUrl: 'http://gemini.test',
    });
  });

  it('has an input with exactly the mutation arguments (providerName aside)', () => {
    type Arguments = keyof ControlPlaneOperations.UpsertProviderCredentialMutationVariables;
    expectTypeOf<keyof UpsertConnectionInput>().toEqualTypeOf<Exclude<Arguments, 'providerName'>>();
  });
});

describe('AdminClient.provisionTenant', () => {
  const created = {
    tenantId: 't1',
    workspaceId: 'default',
    apiKeyId: 'key_9',
    apiKey: 'tt_sk_child',
    topUpUrl: 'http://control.test/billing/top-up/t1',
  };

  it('POSTs the body with the provisioning key, never the PAT, and the Idempotency-Key', async () => {
    const { fake, client } = clientWith({ status: 201, json: created });
    const result = await client.provisionTenant(
      { name: 'Customer 1', region: 'eu-west-1' },
      { provisioningKey: 'tt_prov_key', idempotencyKey: 'signup-1' },
    );
    expect(result).toEqual({ ...created, replayed: false });
    expect(fake.last.url).toBe(`${URL}/provision/tenant`);
    expect(fake.last.headers.authorization).toBe('Bearer tt_prov_key');
    expect(fake.last.headers['idempotency-key']).toBe('signup-1');
    expect(fake.last.body).toEqual({ name: 'Customer 1', region: 'eu-west-1' });
  });

  it('normalises a replay without a key', async () => {
    const replay = {
      tenantId: 't1',
      workspaceId: 'default',
      apiKey: null,
      topUpUrl: 'u',
      replayed: true,
      message: 'm',
    };
    const { client } = clientWith({ status: 200, json: replay });
    await expect(
      client.provisionTenant({ name: 'C' }, { provisioningKey: 'tt_prov_key', idempotencyKey: 'k' }),
    ).resolves.toEqual({
      ...replay,
      apiKeyId: null,
    });
  });

  it('needs a provisioning key', async () => {
    const { fake, client } = clientWith({ json: created });
    await expect(client.provisionTenant({ name: 'C' }, { provisioningKey: '' })).rejects.toThrow(TypeError);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('AdminClient.createOrganization', () => {
  it('POSTs anonymously (no Authorization) with the referral', async () => {
    const answer = {
      organization: {
        id: 'acme',
        name: 'Acme',
        slug: 'acme',
        referral: 'partner.x',
        createdAt: 'now',
        ownerEmail: 'o@a.test',
        workspaces: [],
      },
      pat: { id: 'pat_1', token: 'tt_pat_owner', permissions: ['tokens:mint'] },
    };
    const { fake, client } = clientWith({ status: 201, json: answer });
    await expect(
      client.createOrganization({ name: 'Acme', email: 'o@a.test', referral: 'partner.x' }),
    ).resolves.toEqual(answer);
    expect(fake.last.url).toBe(`${URL}/auth/org/create`);
    expect(fake.last.headers.authorization).toBeUndefined();
    expect(fake.last.body).toEqual({ name: 'Acme', email: 'o@a.test', referral: 'partner.x' });
  });
});
