import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { credentialSecret } from '../../../src/resources/credential-secret.ts';
import { API_VERSION } from '../../../src/resources/types.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';
let gateway: TestGateway;
let otherTenantKeyId: string;
let limitedPat: string;
let mintOnlyPat: string;

beforeAll(async () => {
  gateway = await startTestGateway({ SERVICE_TOKEN_SIGNING_KEY: SIGNING_KEY });
  const { resources } = gateway.running;
  // A second tenant with its own key, and a PAT of ours that may manage keys but not mint.
  await resources.apply({
    apiVersion: API_VERSION,
    kind: 'Tenant',
    metadata: { name: 'other' },
    spec: { displayName: 'Other', workspaces: [{ id: 'main', name: 'Main' }] },
  });
  const otherKey = generateCredential('tt_sk_');
  otherTenantKeyId = otherKey.id;
  await resources.apply(
    credentialSecret('other', 'api-key', otherKey, { workspace: 'main', grants: 'chat:write,embed' }),
  );
  const pat = generateCredential('tt_pat_');
  limitedPat = pat.plaintext;
  await resources.apply(
    credentialSecret(gateway.credentials.tenantId, 'pat', pat, {
      permissions: 'keys:manage',
      admin: 'false',
    }),
  );
  const mintOnly = generateCredential('tt_pat_');
  mintOnlyPat = mintOnly.plaintext;
  await resources.apply(
    credentialSecret(gateway.credentials.tenantId, 'pat', mintOnly, {
      permissions: 'tokens:mint',
      admin: 'false',
    }),
  );
  await gateway.running.settled();
});

afterAll(async () => {
  await gateway?.stop();
});

const mint = (input: Record<string, unknown>, pat = gateway.credentials.pat) =>
  graphql<{ mintEphemeralToken: MintedToken }>(gateway.controlUrl, pat, MINT, { input });

const valid = () => ({ parentKeyId: gateway.credentials.apiKeyId, scopes: ['chat'], ttlSeconds: 600 });

describe('mintEphemeralToken', () => {
  it('mints a tt_ev_ token with jti, ISO expiry and scopes', async () => {
    const before = Date.now();
    const result = await mint({
      ...valid(),
      scopes: ['chat', 'messages', 'model:gpt-4o'],
      budgetMicros: 5000,
      rateLimits: { requestsPerMinute: 10 },
    });
    expect(result.errors).toBeUndefined();
    const minted = result.data!.mintEphemeralToken;
    expect(minted.token).toMatch(/^tt_ev_/);
    expect(minted.jti).toMatch(/^jti_/);
    expect(minted.scopes).toEqual(['chat', 'messages', 'model:gpt-4o']);
    const expiresAt = Date.parse(minted.expiresAt);
    expect(minted.expiresAt).toBe(new Date(expiresAt).toISOString());
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000);
  });

  it.each([
    ['empty scopes', { scopes: [] }, 'at least one scope'],
    ['an unknown scope', { scopes: ['chat', 'admin'] }, "unknown scope 'admin'"],
    ['only model scopes', { scopes: ['model:gpt-4o'] }, 'route scope'],
    ['ttlSeconds of 0', { ttlSeconds: 0 }, 'positive integer'],
    ['negative ttlSeconds', { ttlSeconds: -5 }, 'positive integer'],
    ['ttlSeconds over a day', { ttlSeconds: 86_401 }, 'at most 86400'],
    ['a fractional budget', { budgetMicros: 1.5 }, 'budgetMicros'],
    ['a zero rate limit', { rateLimits: { requestsPerMinute: 0 } }, 'rateLimits.requestsPerMinute'],
    ['an unknown parent key', { parentKeyId: 'key_nope' }, 'not an active key of your tenant'],
  ])('refuses %s with VALIDATION_ERROR naming the rule', async (_name, change, message) => {
    const result = await mint({ ...valid(), ...change });
    expect(result.data?.mintEphemeralToken ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(result.errors?.[0]?.message).toContain(message);
  });

  it.each([
    ['parentKeyId', 'String!'],
    ['scopes', '[String!]!'],
    ['ttlSeconds', 'Int!'],
  ])('declares %s required in the schema, so a typed client catches its absence', async (field, type) => {
    const introspected = await graphql<{
      __type: { inputFields: { name: string; type: { kind: string; ofType: { name: string | null } } }[] };
    }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      '{ __type(name: "MintEphemeralTokenInput") { inputFields { name type { kind ofType { name } } } } }',
    );
    const declared = introspected.data!.__type.inputFields.find((input) => input.name === field);
    expect(declared?.type.kind).toBe('NON_NULL');
    const result = await mint({ ...valid(), [field]: undefined });
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0]?.message).toContain(
      `Field "${field}" of required type "${type}" was not provided`,
    );
  });

  it("refuses another tenant's key as parent", async () => {
    const result = await mint({ ...valid(), parentKeyId: otherTenantKeyId });
    expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(result.errors?.[0]?.message).toContain('not an active key of your tenant');
  });

  it('refuses scopes beyond the parent key grants', async () => {
    const created = await graphql<{ createApiKey: { id: string } }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation { createApiKey(workspaceId: "default", grants: ["embed"]) { id key } }',
    );
    const embedOnly = created.data!.createApiKey.id;
    for (const scope of ['chat', 'messages']) {
      const result = await mint({ ...valid(), parentKeyId: embedOnly, scopes: [scope] });
      expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
      expect(result.errors?.[0]?.message).toContain("needs the parent key to hold 'chat:write'");
    }
    expect(
      (await mint({ ...valid(), parentKeyId: embedOnly, scopes: ['embeddings', 'model:x'] })).errors,
    ).toBeUndefined();
  });

  it('refuses a revoked parent key', async () => {
    const created = await graphql<{ createApiKey: { id: string } }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation { createApiKey(workspaceId: "default") { id key } }',
    );
    const keyId = created.data!.createApiKey.id;
    const revoked = await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation($id: String!) { revokeApiKey(id: $id) }',
      { id: keyId },
    );
    expect(revoked.data).toEqual({ revokeApiKey: true });
    const result = await mint({ ...valid(), parentKeyId: keyId });
    expect(result.data?.mintEphemeralToken ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(result.errors?.[0]?.message).toContain(
      `parentKeyId '${keyId}' is not an active key of your tenant`,
    );
  });
});

describe('control plane authentication and limits', () => {
  it('answers UNAUTHENTICATED without a PAT or with an unknown one', async () => {
    for (const pat of [undefined, 'tt_pat_unknown', gateway.credentials.apiKey]) {
      const result = await graphql(gateway.controlUrl, pat, MINT, { input: valid() });
      expect(result.status).toBe(401);
      expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
  });

  it('answers FORBIDDEN for a PAT without the permission', async () => {
    const result = await mint(valid(), limitedPat);
    expect(result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(result.errors?.[0]?.message).toContain("'tokens:mint'");
  });

  it.each([
    ['keys:manage', 'mutation { createApiKey(workspaceId: "default") { id key } }'],
    ['keys:manage', 'mutation($id: String!) { revokeApiKey(id: $id) }'],
    ['keys:manage', '{ apiKeys { id } }'],
    ['cache:manage', 'mutation { upsertCachePolicy(input: { name: "p", ttlSeconds: 60 }) { name } }'],
    ['cache:manage', 'mutation { deleteCachePolicy(name: "p") }'],
    ['cache:manage', 'mutation { revalidateCacheTags(workspaceId: "default", tags: ["t"]) { invalidated } }'],
    ['cache:manage', 'mutation { purgeGatewayCache(workspaceId: "default") { purged generation } }'],
    ['cache:manage', '{ cachePolicies { name } }'],
  ])('answers FORBIDDEN naming %s to a PAT without it: %s', async (permission, query) => {
    const result = await graphql(gateway.controlUrl, mintOnlyPat, query, {
      id: gateway.credentials.apiKeyId,
    });
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(result.errors?.[0]?.message).toContain(`'${permission}'`);
  });

  it('leaves the key working when a PAT without keys:manage tries to revoke it', async () => {
    const refused = await graphql(
      gateway.controlUrl,
      mintOnlyPat,
      'mutation($id: String!) { revokeApiKey(id: $id) }',
      {
        id: gateway.credentials.apiKeyId,
      },
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const keys = await graphql<{ apiKeys: { id: string }[] }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      '{ apiKeys { id } }',
    );
    expect(keys.data!.apiKeys.map((key) => key.id)).toContain(gateway.credentials.apiKeyId);
    expect((await mint(valid())).errors).toBeUndefined();
  });

  it('answers NOT_FOUND when revoking an unknown token or key', async () => {
    const token = await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation { revokeEphemeralToken(jti: "jti_nope") }',
    );
    expect(token.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const key = await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      `mutation { revokeEphemeralTokensForKey(parentKeyId: "${otherTenantKeyId}") }`,
    );
    expect(key.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it.each([
    ['/graphql', () => gateway.credentials.pat],
    ['/admin/graphql', () => gateway.credentials.adminPat],
  ])(
    'answers the full getIntrospectionQuery() of GraphQL tools on %s, and buildClientSchema accepts it',
    async (path, pat) => {
      const query = getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        inputValueDeprecation: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
      });
      const result = await graphql<IntrospectionQuery>(gateway.controlUrl, pat(), query, {}, path);
      expect(result.errors).toBeUndefined();
      expect(result.status).toBe(200);
      const schema = buildClientSchema(result.data as IntrospectionQuery);
      const root = path === '/graphql' ? 'mintEphemeralToken' : 'suspendTenant';
      expect(schema.getMutationType()?.getFields()[root]).toBeDefined();
    },
  );

  it('refuses an ordinary query deeper than the limit', async () => {
    // Nine levels: tenant > children x7 > id.
    const deep =
      '{ tenant { children { children { children { children { children { children { children { id } } } } } } } } }';
    const result = await graphql(gateway.controlUrl, gateway.credentials.pat, deep);
    expect(result.status).toBe(400);
    expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(result.errors?.[0]?.message).toContain('deeper than 8 levels');
    const admin = await graphql(
      gateway.controlUrl,
      gateway.credentials.adminPat,
      '{ tenantTree { children { children { children { children { children { children { children { id } } } } } } } } }',
      {},
      '/admin/graphql',
    );
    expect(admin.errors?.[0]?.message).toContain('deeper than 8 levels');
  });

  it('refuses a fragment bomb at once with VALIDATION_ERROR', async () => {
    // About 1 KB: each fragment spreads the next twice, 2^30 fields once expanded. Walked spread by
    // spread this holds the event loop for hours, far past the test's timeout.
    const fragments = Array.from(
      { length: 30 },
      (_, index) => `fragment F${index} on Query { ...F${index + 1} ...F${index + 1} }`,
    );
    const bomb = `query { ...F0 } ${fragments.join(' ')} fragment F30 on Query { auditLog { id } }`;
    const result = await graphql(gateway.controlUrl, gateway.credentials.pat, bomb);
    expect(result.status).toBe(400);
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(result.errors?.[0]?.message).toContain('more than 200 fields');
  });

  it('refuses fragment cycles without looping', async () => {
    const cycle = 'query { ...A } fragment A on Query { auditLog { id } ...B } fragment B on Query { ...A }';
    const result = await graphql(gateway.controlUrl, gateway.credentials.pat, cycle);
    expect(result.status).toBe(400);
    expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(result.errors?.[0]?.message).toContain('Cannot spread fragment "A" within itself');
  });

  it('refuses queries over the size limit', async () => {
    const huge = `{ auditLog { id } ${' '.repeat(25_000)} }`;
    const result = await graphql(gateway.controlUrl, gateway.credentials.pat, huge);
    expect(result.status).toBe(400);
    expect(result.errors?.[0]?.message).toContain('longer than');
  });

  it('reports malformed variables as BAD_USER_INPUT, not an internal error', async () => {
    const result = await graphql(gateway.controlUrl, gateway.credentials.pat, MINT, {
      input: { ttlSeconds: 'soon' },
    });
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('auditLog', () => {
  it('records every mutation with actor, target and outcome, and never a secret', async () => {
    const minted = await mint(valid());
    const token = minted.data!.mintEphemeralToken.token;
    await mint({ ...valid(), ttlSeconds: 0 });
    const result = await graphql<{
      auditLog: { operation: string; outcome: string; actor: string; target: string; message?: string }[];
    }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      '{ auditLog(limit: 5) { id at actor operation target outcome message } }',
    );
    const [failure, success] = result.data!.auditLog;
    expect(failure).toMatchObject({
      operation: 'mintEphemeralToken',
      outcome: 'failure',
      target: gateway.credentials.apiKeyId,
    });
    expect(failure!.message).toContain('ttlSeconds');
    expect(success).toMatchObject({ operation: 'mintEphemeralToken', outcome: 'success' });
    expect(success!.actor).toMatch(/^pat_/);
    expect(JSON.stringify(result.data)).not.toContain(token);
    expect(JSON.stringify(result.data)).not.toContain(gateway.credentials.pat);
  });
});

describe('introspection', () => {
  it('can be turned off', async () => {
    const closed = await startTestGateway({
      SERVICE_TOKEN_SIGNING_KEY: SIGNING_KEY,
      CONTROL_GRAPHQL_INTROSPECTION: 'off',
    });
    try {
      const result = await graphql(
        closed.controlUrl,
        closed.credentials.pat,
        '{ __schema { queryType { name } } }',
      );
      expect(result.errors?.[0]?.message).toContain('introspection');
      const open = await graphql(
        gateway.controlUrl,
        gateway.credentials.pat,
        '{ __schema { queryType { name } } }',
      );
      expect(open.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    } finally {
      await closed.stop();
    }
  });
});
