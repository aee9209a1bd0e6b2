import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redact } from '../src/index.ts';
import { ADMIN_PAT, type Connected, connect, PAT, PROVISIONING_KEY, textOf } from './connect.ts';
import { TYPICAL } from './fake-control-plane.ts';

const API_KEY = 'sk-live-unit-SECRET-apikey-0001';
const AWS_SECRET = 'aws-SECRET-access-key-0002/+abc';
const AWS_SESSION = 'aws-SECRET-session-token-0003';
const GCP_JSON = JSON.stringify(
  {
    type: 'service_account',
    project_id: 'p',
    private_key: '-----BEGIN PRIVATE KEY-----\nMIIE-SECRET-0004\n-----END PRIVATE KEY-----\n',
  },
  null,
  2,
);
const SECRETS = [PAT, ADMIN_PAT, PROVISIONING_KEY, API_KEY, AWS_SECRET, AWS_SESSION, GCP_JSON];

/** Every way a secret could appear in a result: as is, or escaped inside JSON text. */
function leaks(result: CallToolResult): string[] {
  const text = JSON.stringify(result);
  return SECRETS.filter(
    (secret) => text.includes(secret) || text.includes(JSON.stringify(secret).slice(1, -1)),
  );
}

let connected: Connected;
beforeAll(async () => {
  connected = await connect({ admin: true, provisioning: true });
});
afterAll(async () => {
  await connected.close();
});

/** Every tool, with secrets wherever it takes them. */
const CALLS: [string, Record<string, unknown>][] = [
  ['list_connections', {}],
  ['upsert_connection', { provider: 'openai', slug: 'my-openai', apiKey: API_KEY, dailyCapUsd: '2.5' }],
  [
    'upsert_connection',
    {
      provider: 'bedrock',
      slug: 'aws',
      awsAccessKeyId: 'AKIA1',
      awsSecretAccessKey: AWS_SECRET,
      awsSessionToken: AWS_SESSION,
      awsRegion: 'us-east-1',
    },
  ],
  [
    'upsert_connection',
    {
      provider: 'vertex',
      slug: 'gcp',
      gcpServiceAccountJson: GCP_JSON,
      vertexProject: 'p',
      vertexRegion: 'us-central1',
    },
  ],
  ['test_connection', { slug: 'my-openai' }],
  ['revoke_connection', { slug: 'my-openai' }],
  ['provider_availability', {}],
  ['mint_ephemeral_token', { parentKeyId: 'key_1', scopes: ['chat'], ttlSeconds: 60 }],
  ['revoke_ephemeral_token', { jti: 'jti_1' }],
  ['revoke_tokens_for_key', { parentKeyId: 'key_1' }],
  ['purge_cache', {}],
  ['revalidate_cache_tags', { tags: ['a'] }],
  ['list_cache_policies', {}],
  ['upsert_cache_policy', { name: 'docs' }],
  ['delete_cache_policy', { name: 'docs' }],
  ['list_model_routes', {}],
  ['upsert_model_route', { model: 'chat', targets: [{ model: 'openai/a' }] }],
  ['delete_model_route', { model: 'chat' }],
  ['get_tenant', { withBalances: true }],
  ['list_workspaces', {}],
  ['create_workspace', { name: 'Research' }],
  ['list_api_keys', {}],
  ['create_api_key', {}],
  ['revoke_api_key', { id: 'key_1' }],
  ['get_balance', {}],
  ['create_organization', { name: 'Acme Labs', email: 'owner@acme.example', referral: 'partner.x' }],
  ['provision_tenant', { name: 'Customer' }],
  ['list_organizations', {}],
  ['get_organization', { slug: 'acme-labs' }],
  ['suspend_tenant', { id: 'acme-labs' }],
  ['resume_tenant', { id: 'acme-labs' }],
  ['top_up_balance', { tenantId: 'acme-labs', amountMicros: 1 }],
];

describe('secrets in tool results', () => {
  it('never appear in the result of any tool, and every tool was called', async () => {
    for (const [tool, args] of CALLS) {
      const result = await connected.call(tool, args);
      expect(result.isError, `${tool}: ${textOf(result)}`).toBeFalsy();
      expect(leaks(result), tool).toEqual([]);
    }
    const listed = (await connected.client.listTools()).tools.map((tool) => tool.name);
    expect(new Set(CALLS.map(([tool]) => tool))).toEqual(new Set(listed));
  });

  it('reach the control plane (they are written, just never read back)', async () => {
    await connected.call('upsert_connection', {
      provider: 'vertex',
      slug: 'gcp',
      gcpServiceAccountJson: GCP_JSON,
    });
    expect(connected.fake.last('UpsertProviderCredential').variables.gcpServiceAccountJson).toBe(GCP_JSON);
  });

  it('are redacted when a service message repeats one the call sent', async () => {
    connected.fake.answer('UpsertProviderCredential', (call) => ({
      graphqlErrors: [
        {
          message: `rejected ${String(call.variables.apiKey ?? call.variables.gcpServiceAccountJson)}`,
          extensions: { code: 'VALIDATION_ERROR' },
        },
      ],
    }));
    for (const args of [
      { provider: 'openai', apiKey: API_KEY },
      { provider: 'vertex', gcpServiceAccountJson: GCP_JSON },
    ]) {
      const result = await connected.call('upsert_connection', args);
      expect(result).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'VALIDATION_ERROR' } },
      });
      expect(textOf(result)).toBe('VALIDATION_ERROR: UpsertProviderCredential: rejected [redacted]');
      expect(leaks(result)).toEqual([]);
    }
    connected.fake.answer('UpsertProviderCredential', TYPICAL.UpsertProviderCredential!);
  });

  it("are redacted when a result field carries one (a service's regression)", async () => {
    const connection = (TYPICAL.UpsertProviderCredential as { value: Record<string, unknown> }).value;
    connected.fake.answer('UpsertProviderCredential', { value: { ...connection, keyHint: API_KEY } });
    const result = await connected.call('upsert_connection', { provider: 'openai', apiKey: API_KEY });
    expect(result.structuredContent).toMatchObject({ connection: { keyHint: '[redacted]' } });
    expect(leaks(result)).toEqual([]);
    connected.fake.answer('UpsertProviderCredential', TYPICAL.UpsertProviderCredential!);
  });

  it("never show the server's own credentials, even in a service message", async () => {
    connected.fake.answer('Balance', {
      graphqlErrors: [{ message: `token ${PAT} was revoked`, extensions: { code: 'UNAUTHENTICATED' } }],
    });
    connected.fake.answer('POST /provision/tenant', {
      status: 401,
      json: { error: { code: 'UNAUTHENTICATED', message: `unknown key ${PROVISIONING_KEY}` } },
    });
    for (const [tool, args] of [
      ['get_balance', {}],
      ['provision_tenant', { name: 'x' }],
    ] as const) {
      const result = await connected.call(tool, args);
      expect(result).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'UNAUTHENTICATED' } },
      });
      expect(leaks(result)).toEqual([]);
    }
    connected.fake.answer('Balance', TYPICAL.Balance!);
    connected.fake.answer('POST /provision/tenant', TYPICAL['POST /provision/tenant']!);
  });

  it('are replaced wherever they occur in nested strings; values under 8 characters are left alone', () => {
    expect(
      redact({ a: ['x sk-0123456789 y', { b: 'sk-0123456789' }], n: 1 }, ['sk-0123456789', 'abc']),
    ).toEqual({
      a: ['x [redacted] y', { b: '[redacted]' }],
      n: 1,
    });
    expect(redact('abc abc', ['abc'])).toBe('abc abc');
  });
});
