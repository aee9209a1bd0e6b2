/**
 * The tool server (packages/mcp, `igw-mcp`) end to end: the real standalone service, and the
 * server's executable spawned as a subprocess (from its sources) and driven over stdio by the MCP
 * SDK's own client: tools/list, then tools/call for an organisation with a referral (read back by
 * the platform admin), a Connection upsert by slug (served by the gateway, against a fake
 * OpenAI-compatible upstream), tool errors with the service's codes, and a clean exit.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { PlatformAdminClient } from '@inference-gateway/admin';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const REPO_ROOT = resolve(import.meta.dirname, '../../..');
const SERVER_ARGS = ['--conditions=source', 'packages/mcp/src/bin.ts'];
const SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';
const CONNECTION_SECRET = 'sk-mcp-connection-secret-0123456789';

let upstream: FakeServer;
let gateway: TestGateway;
let transport: StdioClientTransport;
let client: Client;
const stderr: string[] = [];
const clientErrors: Error[] = [];
const results: CallToolResult[] = [];

/** Calls a tool through the SDK client and keeps the result for the secret scan. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  results.push(result);
  return result;
}

const text = (result: CallToolResult) =>
  result.content.map((entry) => (entry.type === 'text' ? entry.text : '')).join('\n');

beforeAll(async () => {
  upstream = await startFakeOpenAi();
  gateway = await startTestGateway({
    SERVICE_TOKEN_SIGNING_KEY: SIGNING_KEY,
    OPENAI_API_KEY: 'sk-platform',
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    ORG_CREATE_RATE_PER_IP: 'off',
    PROVISION_RATE_PER_KEY: 'off',
    PROVISION_RATE_PER_IP: 'off',
  });
  transport = new StdioClientTransport({
    command: process.execPath,
    args: SERVER_ARGS,
    env: {
      IGW_URL: gateway.controlUrl,
      IGW_TOKEN: gateway.credentials.pat,
      IGW_ADMIN_TOKEN: gateway.credentials.adminPat,
      IGW_PROVISIONING_KEY: gateway.credentials.provisioningKey,
      PATH: process.env.PATH ?? '',
    },
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  client = new Client({ name: 'igw-mcp-e2e', version: '0.0.0' });
  client.onerror = (error) => clientErrors.push(error);
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await gateway?.stop();
  await upstream?.stop();
});

describe('igw-mcp over stdio', () => {
  it('introduces itself and lists the tools, with the admin and provisioning ones it was configured for', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'igw-mcp', version: '0.16.0' });
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'list_connections',
        'upsert_connection',
        'revoke_connection',
        'mint_ephemeral_token',
        'purge_cache',
        'upsert_model_route',
        'create_api_key',
        'create_organization',
        'provision_tenant',
        'list_organizations',
        'get_organization',
        'top_up_balance',
      ]),
    );
    expect(names).toHaveLength(30);
    for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe('object');
    const create = tools.find((tool) => tool.name === 'create_organization');
    expect(Object.keys(create?.inputSchema.properties ?? {})).toContain('referral');
  });

  it('creates an organisation with a referral that the platform admin reads back', async () => {
    const created = await call('create_organization', {
      name: 'MCP Labs',
      email: 'owner@mcp-labs.example',
      referral: ' partner.mcp ',
    });
    expect(created.isError, text(created)).toBeFalsy();
    expect(created.structuredContent).toMatchObject({
      organization: {
        id: 'mcp-labs',
        slug: 'mcp-labs',
        referral: 'partner.mcp',
        ownerEmail: 'owner@mcp-labs.example',
      },
      pat: { token: expect.stringMatching(/^tt_pat_/) },
    });

    const viaTool = await call('get_organization', { slug: 'mcp-labs' });
    expect(viaTool.structuredContent).toMatchObject({
      organization: { slug: 'mcp-labs', referral: 'partner.mcp', parentId: null },
    });
    const platform = new PlatformAdminClient({
      url: gateway.controlUrl,
      token: gateway.credentials.adminPat,
    });
    expect(await platform.getOrganization('mcp-labs')).toMatchObject({ referral: 'partner.mcp' });
  });

  it('upserts a Connection by slug: the result carries the slug and keyHint, never the key, and the gateway serves it', async () => {
    const upserted = await call('upsert_connection', {
      provider: 'openai-compatible',
      slug: 'mcp-compat',
      apiKey: CONNECTION_SECRET,
      baseUrl: `${upstream.url}/v1`,
      dailyCapUsd: '2.5',
    });
    expect(upserted.isError, text(upserted)).toBeFalsy();
    expect(upserted.structuredContent).toMatchObject({
      connection: {
        slug: 'mcp-compat',
        kind: 'openaiCompatible',
        keyHint: expect.stringMatching(/…/),
        dailyCapMicros: 2_500_000,
        ready: true,
      },
    });
    expect(JSON.stringify(upserted)).not.toContain(CONNECTION_SECRET);

    const listed = await call('list_connections');
    const connections = (listed.structuredContent as { connections: { slug: string }[] }).connections;
    expect(connections.map((connection) => connection.slug)).toContain('mcp-compat');

    await expect(call('test_connection', { slug: '@mcp-compat' })).resolves.toMatchObject({
      structuredContent: { test: { ok: true, status: 200 } },
    });
    const chat = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: '@mcp-compat/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
      gateway.credentials.apiKey,
    );
    expect(chat.status).toBe(200);
  });

  it('upserts a model route on that Connection, lists it, refuses one on a missing Connection, deletes it', async () => {
    const upserted = await call('upsert_model_route', {
      model: 'mcp-chat',
      targets: [
        { model: '@mcp-compat/gpt-4o-mini', weight: 2 },
        { model: 'openai/gpt-4o-mini', priority: 1 },
      ],
    });
    expect(upserted.isError, text(upserted)).toBeFalsy();
    expect(upserted.structuredContent).toMatchObject({
      route: {
        model: 'mcp-chat',
        workspaceId: null,
        targets: [
          { model: '@mcp-compat/gpt-4o-mini', weight: 2, priority: 0 },
          { model: 'openai/gpt-4o-mini', weight: 1, priority: 1 },
        ],
        retry: { maxAttempts: 3 },
      },
    });
    const listed = await call('list_model_routes');
    expect(text(listed)).toContain('mcp-chat (tenant-wide, weighted): p0 @mcp-compat/gpt-4o-mini×2');
    const refused = await call('upsert_model_route', {
      model: 'mcp-bad',
      targets: [{ model: '@no-such-connection/gpt-4o-mini' }],
    });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'VALIDATION_ERROR' } },
    });
    expect(text(refused)).toContain("names Connection 'no-such-connection'");
    await expect(call('delete_model_route', { model: 'mcp-chat' })).resolves.toMatchObject({
      structuredContent: { deleted: true },
    });
  });

  it("returns the service's refusals as tool errors with its code, not as protocol failures", async () => {
    const unknown = await call('revoke_connection', { slug: 'no-such-connection' });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { error: { code: 'NOT_FOUND' } } });
    expect(text(unknown)).toMatch(/^NOT_FOUND: /);

    const tooLong = await call('mint_ephemeral_token', {
      parentKeyId: gateway.credentials.apiKeyId,
      scopes: ['chat'],
      ttlSeconds: 90_000,
    });
    expect(tooLong).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'VALIDATION_ERROR' } },
    });
    expect(text(tooLong)).toMatch(/^VALIDATION_ERROR: .*86400/);
  });

  it('mints a token that works on the gateway, and provisions a child tenant with the provisioning key', async () => {
    const minted = await call('mint_ephemeral_token', {
      parentKeyId: gateway.credentials.apiKeyId,
      scopes: ['chat'],
      ttlSeconds: 600,
      budgetUsd: '0.5',
    });
    const token = (minted.structuredContent as { token: { token: string } }).token.token;
    expect(token).toMatch(/^tt_ev_/);
    const chat = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
      token,
    );
    expect(chat.status).toBe(200);

    const child = await call('provision_tenant', { name: 'MCP Customer', idempotencyKey: 'mcp-signup-1' });
    expect(child.structuredContent).toMatchObject({
      tenant: { workspaceId: 'default', apiKey: expect.stringMatching(/^tt_sk_/), replayed: false },
    });
  });

  it('never put a secret it was given into a result or its log, and wrote nothing but JSON-RPC on stdout', () => {
    const secrets = [
      CONNECTION_SECRET,
      gateway.credentials.pat,
      gateway.credentials.adminPat,
      gateway.credentials.provisioningKey,
    ];
    const everything = JSON.stringify(results) + stderr.join('');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(stderr.join('')).toMatch(/igw-mcp: 0\.16\.0 serving http:\/\/127\.0\.0\.1:\d+ on stdio/);
    expect(clientErrors).toEqual([]);
  });

  it('exits on its own when the client closes', async () => {
    const pid = transport.pid;
    expect(pid).toBeTypeOf('number');
    const started = Date.now();
    await client.close();
    // The transport sends SIGTERM after 2 s of waiting; an exit before that is the server's own.
    expect(Date.now() - started).toBeLessThan(1900);
    expect(() => process.kill(pid!, 0)).toThrow();
  });
});

describe('the igw-mcp executable', () => {
  function run(
    env: Record<string, string>,
    args: string[] = [],
  ): Promise<{ code: number | null; stderr: string; stdout: string }> {
    return new Promise((done, fail) => {
      const child = spawn(process.execPath, [...SERVER_ARGS, ...args], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
      });
      let errors = '';
      let output = '';
      child.stderr.on('data', (chunk: Buffer) => {
        errors += chunk.toString('utf8');
      });
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      child.on('error', fail);
      child.on('close', (code) => done({ code, stderr: errors, stdout: output }));
      child.stdin.end();
    });
  }

  it('exits with 0 when stdin ends', async () => {
    const result = await run({ IGW_URL: gateway.controlUrl, IGW_TOKEN: gateway.credentials.pat });
    expect(result).toMatchObject({ code: 0, stdout: '' });
  });

  it('exits with 2 and says what is missing, on stderr, without a configuration', async () => {
    const result = await run({ IGW_URL: 'not a url' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/IGW_URL must be an http\(s\) URL; IGW_TOKEN is required/);
  });

  it('answers --help and --version on stdout with exit 0, without any configuration', async () => {
    const help = await run({}, ['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: igw-mcp \[--help \| --version\]\n/);
    expect(help.stdout).toContain('IGW_TOKEN');
    const version = await run({}, ['--version']);
    expect(version).toEqual({ code: 0, stdout: '0.16.0\n', stderr: '' });
  });

  it('refuses an unexpected argument with exit 2 instead of serving', async () => {
    const result = await run({ IGW_URL: gateway.controlUrl, IGW_TOKEN: gateway.credentials.pat }, [
      '--verbose',
    ]);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(/^igw-mcp: unexpected argument: .*--help and --version/);
  });

  it('refuses a workspace API key as IGW_TOKEN with exit 2, naming what it needs and never the key', async () => {
    const result = await run({ IGW_URL: gateway.controlUrl, IGW_TOKEN: gateway.credentials.apiKey });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      "igw-mcp: invalid configuration: IGW_TOKEN holds a workspace API key (tt_sk_...), but it needs a personal access token (tt_pat_...): a workspace API key is for the gateway's inference API (/v1), not the control plane\n",
    );
  });
});
