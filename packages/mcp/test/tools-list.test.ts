import { afterEach, describe, expect, it } from 'vitest';
import { MCP_SERVER_VERSION } from '../src/index.ts';
import { type Connected, connect } from './connect.ts';

const TENANT_TOOLS = [
  'list_connections',
  'upsert_connection',
  'test_connection',
  'revoke_connection',
  'provider_availability',
  'mint_ephemeral_token',
  'revoke_ephemeral_token',
  'revoke_tokens_for_key',
  'purge_cache',
  'revalidate_cache_tags',
  'list_cache_policies',
  'upsert_cache_policy',
  'delete_cache_policy',
  'list_model_routes',
  'upsert_model_route',
  'delete_model_route',
  'get_tenant',
  'list_workspaces',
  'create_workspace',
  'list_api_keys',
  'create_api_key',
  'revoke_api_key',
  'get_balance',
  'create_organization',
];
const PLATFORM_TOOLS = [
  'list_organizations',
  'get_organization',
  'suspend_tenant',
  'resume_tenant',
  'top_up_balance',
];
const READ_ONLY = [
  'list_connections',
  'test_connection',
  'provider_availability',
  'list_cache_policies',
  'list_model_routes',
  'get_tenant',
  'list_workspaces',
  'list_api_keys',
  'get_balance',
  'list_organizations',
  'get_organization',
];

let connected: Connected | undefined;
afterEach(async () => {
  await connected?.close();
  connected = undefined;
});

async function toolsOf(options: Parameters<typeof connect>[0]) {
  connected = await connect(options);
  return (await connected.client.listTools()).tools;
}

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; [key: string]: unknown };

describe('tools/list', () => {
  it('lists the tenant tools and create_organization with a PAT alone', async () => {
    const tools = await toolsOf({});
    expect(tools.map((tool) => tool.name)).toEqual(TENANT_TOOLS);
  });

  it('adds provision_tenant with a provisioning key, and the platform admin tools with an admin token', async () => {
    expect((await toolsOf({ provisioning: true })).map((tool) => tool.name)).toEqual([
      ...TENANT_TOOLS,
      'provision_tenant',
    ]);
    await connected?.close();
    expect((await toolsOf({ admin: true })).map((tool) => tool.name)).toEqual([
      ...TENANT_TOOLS,
      ...PLATFORM_TOOLS,
    ]);
    await connected?.close();
    expect(await toolsOf({ admin: true, provisioning: true })).toHaveLength(TENANT_TOOLS.length + 6);
  });

  it('gives every tool a title, a description, a strict JSON-schema input and an output schema with the error alternative', async () => {
    for (const tool of await toolsOf({ admin: true, provisioning: true })) {
      expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description?.length, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object', additionalProperties: false });
      const output = tool.outputSchema as JsonSchema;
      expect(output.type, tool.name).toBe('object');
      expect(output.properties?.error, tool.name).toMatchObject({
        type: 'object',
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      });
      expect(output.oneOf, tool.name).toEqual([
        { required: Object.keys(output.properties ?? {}).filter((key) => key !== 'error') },
        { required: ['error'] },
      ]);
    }
  });

  it('annotates every tool: read-only ones as such, the others as destructive or not and idempotent or not', async () => {
    for (const tool of await toolsOf({ admin: true, provisioning: true })) {
      const hints = tool.annotations ?? {};
      expect(typeof hints.readOnlyHint, tool.name).toBe('boolean');
      expect(typeof hints.destructiveHint, tool.name).toBe('boolean');
      expect(typeof hints.idempotentHint, tool.name).toBe('boolean');
      expect(hints.readOnlyHint, tool.name).toBe(READ_ONLY.includes(tool.name));
      if (hints.readOnlyHint) expect(hints.destructiveHint, tool.name).toBe(false);
    }
    const byName = new Map((await toolsOf({})).map((tool) => [tool.name, tool.annotations]));
    expect(byName.get('revoke_connection')).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(byName.get('upsert_connection')).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(byName.get('create_api_key')).toMatchObject({ destructiveHint: false, idempotentHint: false });
    expect(byName.get('test_connection')).toMatchObject({ openWorldHint: true });
  });

  it('describes the Connection upsert with slug, label, every provider kind and the cap in USD or micros', async () => {
    const upsert = (await toolsOf({})).find((tool) => tool.name === 'upsert_connection');
    const properties = upsert?.inputSchema.properties as Record<string, JsonSchema>;
    expect(upsert?.inputSchema.required).toEqual(['provider']);
    expect(properties.provider?.enum).toEqual(
      expect.arrayContaining([
        'openai',
        'anthropic',
        'gemini',
        'bedrock',
        'bedrock-mantle',
        'vertex',
        'openai-compatible',
      ]),
    );
    expect(Object.keys(properties)).toEqual(
      expect.arrayContaining([
        'slug',
        'label',
        'apiKey',
        'awsAccessKeyId',
        'awsSecretAccessKey',
        'awsSessionToken',
        'awsRegion',
        'gcpServiceAccountJson',
        'vertexProject',
        'vertexRegion',
        'baseUrl',
        'workspaceId',
        'defaultModel',
        'dailyCapUsd',
        'dailyCapMicros',
      ]),
    );
    expect(properties.dailyCapUsd).toMatchObject({ type: ['string', 'null'] });
    expect(properties.dailyCapUsd?.description).toMatch(/decimal string/);
    expect(properties.dailyCapMicros).toMatchObject({
      anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }],
      description: expect.stringMatching(/USD micros/),
    });
  });

  it('describes organisation creation with the optional referral', async () => {
    const create = (await toolsOf({})).find((tool) => tool.name === 'create_organization');
    expect(create?.inputSchema.required).toEqual(['name', 'email']);
    expect(Object.keys(create?.inputSchema.properties ?? {})).toEqual(['name', 'email', 'slug', 'referral']);
    expect(create?.description).toMatch(/referral/);
    expect(create?.description).toMatch(/returned once/);
  });

  it('says in the description of each tool that makes a secret that it returns it once', async () => {
    const tools = await toolsOf({ provisioning: true });
    for (const name of [
      'mint_ephemeral_token',
      'create_api_key',
      'create_organization',
      'provision_tenant',
    ]) {
      expect(tools.find((tool) => tool.name === name)?.description, name).toMatch(/secret, returned once/);
    }
  });

  it('introduces itself as igw-mcp with the package version and instructions', async () => {
    connected = await connect({});
    expect(connected.client.getServerVersion()).toMatchObject({
      name: 'igw-mcp',
      version: MCP_SERVER_VERSION,
    });
    expect(connected.client.getInstructions()).toMatch(/USD micros/);
  });
});
