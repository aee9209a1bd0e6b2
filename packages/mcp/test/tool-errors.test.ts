import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connect, textOf } from './connect.ts';
import { TYPICAL } from './fake-control-plane.ts';

let connected: Connected;
beforeAll(async () => {
  connected = await connect({ admin: true, provisioning: true });
});
afterAll(async () => {
  await connected.close();
});

describe('tool errors', () => {
  it("returns the service's GraphQL error as a tool error with its extensions.code", async () => {
    connected.fake.answer('MintEphemeralToken', {
      graphqlErrors: [
        { message: 'ttlSeconds must be at most 86400', extensions: { code: 'VALIDATION_ERROR' } },
      ],
    });
    const result = await connected.call('mint_ephemeral_token', {
      parentKeyId: 'key_1',
      scopes: ['chat'],
      ttlSeconds: 90_000,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('VALIDATION_ERROR: MintEphemeralToken: ttlSeconds must be at most 86400');
    expect(result.structuredContent).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: 'MintEphemeralToken: ttlSeconds must be at most 86400',
        retryable: false,
      },
    });
    connected.fake.answer('MintEphemeralToken', TYPICAL.MintEphemeralToken!);
  });

  it.each([
    ['revoke_connection', { slug: 'nope' }, 'RevokeProviderCredential', 'NOT_FOUND'],
    ['create_api_key', {}, 'CreateApiKey', 'FORBIDDEN'],
    ['get_balance', {}, 'Balance', 'TENANT_SUSPENDED'],
  ])('returns %s refused with %s as isError with that code', async (tool, args, operation, code) => {
    connected.fake.answer(operation, { graphqlErrors: [{ message: 'refused', extensions: { code } }] });
    const result = await connected.call(tool, args);
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code } } });
    expect(textOf(result)).toMatch(new RegExp(`^${code}: `));
    connected.fake.answer(operation, TYPICAL[operation]!);
  });

  it("returns a REST error envelope's code and fields", async () => {
    connected.fake.answer('POST /auth/org/create', {
      status: 409,
      json: { error: { code: 'CONFLICT', message: "the slug 'acme' is taken", fields: ['slug'] } },
    });
    const result = await connected.call('create_organization', {
      name: 'Acme',
      email: 'a@acme.example',
      slug: 'acme',
    });
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'CONFLICT', fields: ['slug'], retryable: false } },
    });
    connected.fake.answer('POST /auth/org/create', TYPICAL['POST /auth/org/create']!);
  });

  it('returns a network failure as NETWORK_ERROR, retryable', async () => {
    connected.fake.answer('Workspaces', { throws: new TypeError('fetch failed') });
    const result = await connected.call('list_workspaces');
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'NETWORK_ERROR', retryable: true } },
    });
    connected.fake.answer('Workspaces', TYPICAL.Workspaces!);
  });

  it('returns an answer that is not the control plane (a proxy page) as UNEXPECTED_RESPONSE', async () => {
    connected.fake.answer('Balance', { status: 502, json: 'Bad gateway' });
    const result = await connected.call('get_balance');
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'UNEXPECTED_RESPONSE' } },
    });
    connected.fake.answer('Balance', TYPICAL.Balance!);
  });

  it('refuses arguments that do not fit the schema with VALIDATION_ERROR naming them, without calling the service', async () => {
    const before = connected.fake.calls.length;
    const result = await connected.call('mint_ephemeral_token', {
      parentKeyId: 'key_1',
      scopes: 'chat',
      ttl: 60,
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'VALIDATION_ERROR', fields: ['scopes', 'ttlSeconds', 'ttl'] },
    });
    expect(textOf(result)).toMatch(/^VALIDATION_ERROR: invalid arguments: scopes: /);
    expect(connected.fake.calls.length).toBe(before);
  });

  it.each([
    [
      'upsert_connection',
      { provider: 'openai', dailyCapUsd: '1', dailyCapMicros: 1 },
      ['dailyCapUsd', 'dailyCapMicros'],
    ],
    ['upsert_connection', { provider: 'openai', dailyCapUsd: '2.5 USD' }, ['dailyCapUsd']],
    ['upsert_connection', { provider: 'openai', dailyCapUsd: '0.0000001' }, ['dailyCapUsd']],
    [
      'mint_ephemeral_token',
      { parentKeyId: 'k', scopes: ['chat'], ttlSeconds: 1, budgetUsd: '-1' },
      ['budgetUsd'],
    ],
    ['top_up_balance', { tenantId: 'acme-labs' }, ['amountUsd', 'amountMicros']],
  ])('refuses %s %j with VALIDATION_ERROR on %j', async (tool, args, fields) => {
    const before = connected.fake.calls.length;
    const result = await connected.call(tool, args);
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'VALIDATION_ERROR', fields } },
    });
    expect(connected.fake.calls.length).toBe(before);
  });

  it('returns a record that no longer fits the output schema as INTERNAL_ERROR, not as a wrong result', async () => {
    connected.fake.answer('Workspaces', { value: [{ id: 'default' }] });
    const result = await connected.call('list_workspaces');
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: 'INTERNAL_ERROR' } } });
    connected.fake.answer('Workspaces', TYPICAL.Workspaces!);
  });

  it('answers an unknown tool with a protocol error (there is no tool to fail)', async () => {
    await expect(connected.call('no_such_tool')).rejects.toThrow(/Tool no_such_tool not found/);
  });

  it('leaves the tools of a server without an admin token out, so they cannot be called', async () => {
    const plain = await connect({});
    await expect(plain.call('top_up_balance', { tenantId: 'x', amountUsd: '1' })).rejects.toThrow(
      /not found/,
    );
    await plain.close();
  });
});
