import { describe, expect, it } from 'vitest';
import { fakeControlPlane, PAT, runCli } from './harness.ts';

describe('tokens', () => {
  const minted = {
    token: 'tt_ev_minted-secret',
    jti: 'jti-1',
    expiresAt: '2025-01-01T00:10:00.000Z',
    scopes: ['chat', 'model:gpt-4o-mini'],
  };

  it('mints with every flag and prints the token once, as a record or JSON', async () => {
    const plane = fakeControlPlane().answer('MintEphemeralToken', { data: { mintEphemeralToken: minted } });
    const argv = [
      'tokens',
      'mint',
      '--parent-key',
      'key_1',
      '--scope',
      'chat',
      '--scope',
      'model:gpt-4o-mini',
      '--ttl',
      '600',
      '--budget-usd',
      '0.3',
      '--rpm',
      '20',
      '--tpm',
      '20000',
    ];
    const human = await runCli(argv, { fetch: plane.fetch });
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(
      [
        'token       tt_ev_minted-secret',
        'jti         jti-1',
        'expires at  2025-01-01T00:10:00.000Z',
        'scopes      chat, model:gpt-4o-mini',
        '',
      ].join('\n'),
    );
    expect(plane.requests[0]?.variables).toEqual({
      input: {
        parentKeyId: 'key_1',
        scopes: ['chat', 'model:gpt-4o-mini'],
        ttlSeconds: 600,
        budgetMicros: 300_000,
        rateLimits: { requestsPerMinute: 20, tokensPerMinute: 20_000 },
      },
    });
    const json = await runCli([...argv.slice(0, 6), '--ttl', '60', '--json'], { fetch: plane.fetch });
    expect(JSON.parse(json.stdout)).toEqual(minted);
    expect(plane.requests[1]?.variables).toEqual({
      input: { parentKeyId: 'key_1', scopes: ['chat'], ttlSeconds: 60 },
    });
  });

  it('leaves the ttl ceiling to the service: its VALIDATION_ERROR is exit 1', async () => {
    const plane = fakeControlPlane().answer('MintEphemeralToken', {
      errors: [{ message: 'ttlSeconds must be between 1 and 86400', code: 'VALIDATION_ERROR' }],
    });
    const result = await runCli(
      ['tokens', 'mint', '--parent-key', 'k', '--scope', 'chat', '--ttl', '90000'],
      {
        fetch: plane.fetch,
      },
    );
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'igw: MintEphemeralToken: ttlSeconds must be between 1 and 86400 (VALIDATION_ERROR)\n',
    });
  });

  it('revokes one token by jti, or every token of a key', async () => {
    const plane = fakeControlPlane()
      .answer('RevokeEphemeralToken', { data: { revokeEphemeralToken: true } })
      .answer('RevokeEphemeralTokensForKey', { data: { revokeEphemeralTokensForKey: true } });
    expect(await runCli(['tokens', 'revoke', 'jti-1'], { fetch: plane.fetch })).toEqual({
      code: 0,
      stdout: "Revoked token 'jti-1'.\n",
      stderr: '',
    });
    const all = await runCli(['tokens', 'revoke', '--all-for-key', 'key_1', '--json'], {
      fetch: plane.fetch,
    });
    expect(JSON.parse(all.stdout)).toEqual({ revoked: true, parentKeyId: 'key_1' });
    const one = await runCli(['tokens', 'revoke', 'jti-1', '--json'], { fetch: plane.fetch });
    expect(JSON.parse(one.stdout)).toEqual({ revoked: true, jti: 'jti-1' });
    expect(plane.requests.map((request) => [request.operation, request.variables])).toEqual([
      ['RevokeEphemeralToken', { jti: 'jti-1' }],
      ['RevokeEphemeralTokensForKey', { parentKeyId: 'key_1' }],
      ['RevokeEphemeralToken', { jti: 'jti-1' }],
    ]);
  });
});

describe('cache', () => {
  it('purges a workspace or a namespace', async () => {
    const plane = fakeControlPlane().answer('PurgeGatewayCache', {
      data: { purgeGatewayCache: { purged: true, generation: 3 } },
    });
    const workspace = await runCli(['cache', 'purge', '--workspace', 'default'], { fetch: plane.fetch });
    expect(workspace.stdout).toBe("Purged the cache of workspace 'default' (generation 3).\n");
    const namespace = await runCli(
      ['cache', 'purge', '--workspace', 'default', '--namespace', 'u-1', '--json'],
      {
        fetch: plane.fetch,
      },
    );
    expect(JSON.parse(namespace.stdout)).toEqual({ purged: true, generation: 3 });
    expect(plane.requests.map((request) => request.variables)).toEqual([
      { workspaceId: 'default' },
      { workspaceId: 'default', namespace: 'u-1' },
    ]);
  });

  it('revalidates every --tag given', async () => {
    const plane = fakeControlPlane().answer('RevalidateCacheTags', {
      data: { revalidateCacheTags: { invalidated: 2 } },
    });
    const result = await runCli(
      ['cache', 'revalidate', '--workspace', 'default', '--tag', 'a', '--tag', 'b'],
      {
        fetch: plane.fetch,
      },
    );
    expect(result.stdout).toBe("Invalidated 2 tags in workspace 'default'.\n");
    expect(plane.requests[0]?.variables).toEqual({ workspaceId: 'default', tags: ['a', 'b'] });
  });

  it('lists policies as a table or JSON', async () => {
    const policies = [
      {
        name: 'default',
        workspaceId: null,
        ttlSeconds: 600,
        swrSeconds: 0,
        maxTtlSeconds: 86_400,
        defaultTags: [],
        semantic: false,
      },
      {
        name: 'docs',
        workspaceId: 'default',
        ttlSeconds: 300,
        swrSeconds: 3600,
        maxTtlSeconds: 86_400,
        defaultTags: ['docs', 'kb'],
        semantic: true,
      },
    ];
    const plane = fakeControlPlane().answer('CachePolicies', { data: { cachePolicies: policies } });
    const table = await runCli(['cache', 'policies'], { fetch: plane.fetch });
    expect(table.stdout).toBe(
      [
        'NAME     WORKSPACE   TTL    SWR  MAX TTL  SEMANTIC  TAGS',
        'default  all        600s     0s   86400s  no        -',
        'docs     default    300s  3600s   86400s  yes       docs,kb',
        '',
      ].join('\n'),
    );
    const json = await runCli(['cache', 'policies', '--workspace', 'default', '--json'], {
      fetch: plane.fetch,
    });
    expect(JSON.parse(json.stdout)).toEqual(policies);
    expect(plane.requests.map((request) => request.variables)).toEqual([{}, { workspaceId: 'default' }]);
  });
});

describe('tenants provision', () => {
  const provisioned = {
    tenantId: 't-child',
    workspaceId: 'default',
    apiKeyId: 'key_child',
    apiKey: 'tt_sk_child-secret',
    topUpUrl: 'http://control.test/billing/top-up/t-child',
  };

  it('sends the provisioning key from stdin (never the PAT) and prints the child once', async () => {
    const plane = fakeControlPlane().answer('POST /provision/tenant', { status: 201, body: provisioned });
    const result = await runCli(
      [
        'tenants',
        'provision',
        '--name',
        'Child',
        '--region',
        'eu-west-1',
        '--idempotency-key',
        'signup-1',
        '--provisioning-key-stdin',
      ],
      { stdin: 'prov-key-from-stdin\n', fetch: plane.fetch },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^api key +tt_sk_child-secret$/m);
    expect(result.stderr).toBe('igw: the API key is shown once: store it now\n');
    const [request] = plane.requests;
    expect(request?.body).toEqual({ name: 'Child', region: 'eu-west-1' });
    expect(request?.headers).toMatchObject({
      authorization: 'Bearer prov-key-from-stdin',
      'idempotency-key': 'signup-1',
    });
    expect(JSON.stringify(request?.headers)).not.toContain(PAT);
  });

  it('takes IGW_PROVISIONING_KEY, needs no PAT, and prints JSON', async () => {
    const plane = fakeControlPlane().answer('POST /provision/tenant', { status: 201, body: provisioned });
    const result = await runCli(['tenants', 'provision', '--name', 'Child', '--json'], {
      fetch: plane.fetch,
      env: { IGW_TOKEN: undefined, IGW_PROVISIONING_KEY: 'prov-env' },
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({ ...provisioned, replayed: false });
    expect(plane.requests[0]?.headers.authorization).toBe('Bearer prov-env');
  });

  it('exits 3 without a provisioning key', async () => {
    const plane = fakeControlPlane();
    const result = await runCli(['tenants', 'provision', '--name', 'Child'], { fetch: plane.fetch });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/\(NO_PROVISIONING_KEY\)\n$/);
    expect(plane.requests).toEqual([]);
  });

  it('names the refused fields of a VALIDATION_ERROR (exit 1)', async () => {
    const plane = fakeControlPlane().answer('POST /provision/tenant', {
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_ERROR',
          message: 'pooled billing is not supported',
          fields: ['billingMode'],
        },
      },
    });
    const result = await runCli(['tenants', 'provision', '--name', 'x', '--billing-mode', 'pooled'], {
      fetch: plane.fetch,
      env: { IGW_PROVISIONING_KEY: 'prov' },
    });
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('(VALIDATION_ERROR)') });
  });
});

describe('orgs create', () => {
  it('signs up anonymously with the referral and prints the owner PAT', async () => {
    const created = {
      organization: {
        id: 'acme',
        name: 'Acme',
        slug: 'acme',
        referral: 'partner.x',
        createdAt: '2025-01-01T00:00:00.000Z',
        ownerEmail: 'a@b.c',
        workspaces: [{ id: 'default', name: 'Default' }],
      },
      pat: { id: 'pat_1', token: 'tt_pat_owner', permissions: ['tokens:mint'] },
    };
    const plane = fakeControlPlane().answer('POST /auth/org/create', { status: 201, body: created });
    const human = await runCli(
      ['orgs', 'create', '--name', 'Acme', '--email', 'a@b.c', '--referral', 'partner.x', '--slug', 'acme'],
      { fetch: plane.fetch, env: { IGW_TOKEN: undefined } },
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^referral +partner\.x$/m);
    expect(human.stdout).toMatch(/^owner pat +tt_pat_owner$/m);
    expect(plane.requests[0]?.body).toEqual({
      name: 'Acme',
      email: 'a@b.c',
      referral: 'partner.x',
      slug: 'acme',
    });
    expect(plane.requests[0]?.headers.authorization).toBeUndefined();

    const json = await runCli(['orgs', 'create', '--name', 'Acme', '--email', 'a@b.c', '--json'], {
      fetch: plane.fetch,
    });
    expect(JSON.parse(json.stdout)).toEqual(created);
    expect(json.stderr).toBe('');
    expect(plane.requests[1]?.body).toEqual({ name: 'Acme', email: 'a@b.c' });
  });

  it('requires --name and --email', async () => {
    expect((await runCli(['orgs', 'create', '--name', 'Acme'])).code).toBe(2);
  });
});
