/**
 * The CLI (packages/cli, `igw`) end to end: the real standalone service, and `igw` run as a
 * subprocess from its sources (`node --conditions=source packages/cli/src/bin.ts ...`) with
 * IGW_URL and IGW_TOKEN in its environment. Covers human tables and `--json`, the exit codes
 * (0 ok, 1 the service refused, 2 usage, 3 auth), secrets from stdin (a provider key, a
 * provisioning key) that never appear in any output, and `--help` of a subcommand.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'packages/cli/src/bin.ts');
const SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';
const PROVIDER_KEY = 'sk-cli-e2e-provider-secret-0123456789';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let upstream: FakeServer;
let gateway: TestGateway;
let home: string;
/** Children still running: a test that fails by hanging must not leave one behind. */
const running = new Set<ChildProcess>();

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
  home = await mkdtemp(join(tmpdir(), 'igw-e2e-home-'));
});

afterAll(async () => {
  for (const child of running) child.kill();
  await gateway?.stop();
  await upstream?.stop();
  if (home !== undefined) await rm(home, { recursive: true, force: true });
});

/**
 * Runs `igw <args>` as a subprocess; stdin gets `input` (then EOF), or stays open with `input: null`.
 * Only the environment given, no more.
 */
function igw(
  args: string[],
  options: { input?: string | null; env?: Record<string, string | undefined> } = {},
) {
  const env: Record<string, string> = {};
  const entries = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    IGW_URL: gateway.controlUrl,
    IGW_TOKEN: gateway.credentials.pat,
    ...options.env,
  };
  for (const [name, value] of Object.entries(entries)) if (value !== undefined) env[name] = value;
  return new Promise<Run>((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--conditions=source', BIN, ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    running.add(child);
    child.on('error', reject);
    child.on('close', (code) => {
      running.delete(child);
      resolvePromise({ code, stdout, stderr });
    });
    if (options.input !== null) child.stdin.end(options.input ?? '');
  });
}

function everything(run: Run): string {
  return run.stdout + run.stderr;
}

describe('igw connections', () => {
  it('adds a Connection with the key from stdin, lists it as a table and JSON, tests and revokes it', async () => {
    const added = await igw(
      [
        'connections',
        'add',
        'openai',
        '--slug',
        'mine',
        '--key-stdin',
        '--base-url',
        `${upstream.url}/v1`,
        '--daily-cap-usd',
        '2.5',
      ],
      { input: `${PROVIDER_KEY}\n` },
    );
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toMatch(/^slug +mine$/m);
    expect(added.stdout).toMatch(/^daily cap +\$2\.50$/m);

    const table = await igw(['connections', 'list']);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^SLUG +PROVIDER +WORKSPACE +DAILY CAP +SPENT TODAY +KEY +STATUS$/);
    const row = rows.find((line) => line.startsWith('mine '));
    expect(row).toMatch(/^mine +openai +all +\$2\.50 +\$0\.00 +sk-…\S+ +Ready$/);

    const json = await igw(['connections', 'list', '--json']);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as { slug: string; dailyCapMicros: number; provider: string }[];
    expect(listed.find((connection) => connection.slug === 'mine')).toMatchObject({
      provider: 'openai',
      dailyCapMicros: 2_500_000,
      ready: true,
    });

    const tested = await igw(['connections', 'test', 'mine']);
    expect(tested).toMatchObject({ code: 0, stderr: '' });
    expect(tested.stdout).toMatch(/^ok +yes$/m);
    expect(tested.stdout).toMatch(/^status +200$/m);

    const alias = await igw(['credentials', 'list']);
    expect(alias.code).toBe(0);
    expect(alias.stdout).toMatch(/^mine /m);

    const revoked = await igw(['connections', 'revoke', 'mine']);
    expect(revoked).toEqual({ code: 0, stdout: "Revoked Connection 'mine'.\n", stderr: '' });
    const after = await igw(['connections', 'list', '--json']);
    expect(
      (JSON.parse(after.stdout) as { slug: string }[]).map((connection) => connection.slug),
    ).not.toContain('mine');

    const gone = await igw(['connections', 'test', 'mine', '--json']);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stderr)).toMatchObject({ error: { code: 'NOT_FOUND' } });

    for (const run of [added, table, json, tested, alias, revoked, after, gone]) {
      expect(everything(run)).not.toContain(PROVIDER_KEY);
    }
  });

  it('refuses a key on argv with exit 2 and never echoes it', async () => {
    const run = await igw(['connections', 'add', 'openai', '--slug', 'argv', '--key', PROVIDER_KEY]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/--key-stdin or --key-file.*\(SECRET_ON_COMMAND_LINE\)\n$/);
    expect(run.stderr).not.toContain(PROVIDER_KEY);
  });

  it('refuses an unknown provider with exit 2 without waiting for the key on stdin', async () => {
    const run = await igw(['connections', 'add', 'opnai', '--slug', 'typo', '--key-stdin'], { input: null });
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "igw: unknown provider 'opnai': use one of openai, anthropic, gemini, bedrock, bedrock-mantle, vertex, openai-compatible (USAGE_ERROR)\n",
    });
  });

  it('hints a short key without showing it, and revokes with a JSON object', async () => {
    const shortKey = 'sk-short';
    const added = await igw(
      [
        'connections',
        'add',
        'openai-compatible',
        '--slug',
        'short',
        '--key-stdin',
        '--base-url',
        `${upstream.url}/v1`,
      ],
      { input: shortKey },
    );
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toMatch(/^key +…$/m);
    const listed = await igw(['connections', 'list', '--json']);
    expect(
      (JSON.parse(listed.stdout) as { slug: string; keyHint: string }[]).find((c) => c.slug === 'short'),
    ).toMatchObject({ keyHint: '…' });

    const revoked = await igw(['credentials', 'revoke', 'short', '--json']);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(revoked.stdout)).toEqual({ revoked: true, slug: 'short' });
    for (const run of [added, listed, revoked]) expect(everything(run)).not.toContain(shortKey);
  });

  it('refuses a cap with 7 decimals with exit 2', async () => {
    const run = await igw(['connections', 'add', 'openai', '--slug', 'x', '--daily-cap-usd', '0.0000001']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/at most 6 decimals.*\(USAGE_ERROR\)\n$/);
  });
});

describe('igw tokens', () => {
  it('mints a token as JSON and revokes it by jti', async () => {
    const minted = await igw([
      'tokens',
      'mint',
      '--parent-key',
      gateway.credentials.apiKeyId,
      '--scope',
      'chat',
      '--ttl',
      '600',
      '--json',
    ]);
    expect(minted).toMatchObject({ code: 0, stderr: '' });
    const token = JSON.parse(minted.stdout) as { token: string; jti: string; scopes: string[] };
    expect(token.token).toMatch(/^tt_ev_/);
    expect(token.scopes).toEqual(['chat']);

    const revoked = await igw(['tokens', 'revoke', token.jti]);
    expect(revoked).toEqual({ code: 0, stdout: `Revoked token '${token.jti}'.\n`, stderr: '' });
  });

  it('exits 1 with the service code when the service refuses (a ttl over 86400)', async () => {
    const run = await igw([
      'tokens',
      'mint',
      '--parent-key',
      gateway.credentials.apiKeyId,
      '--scope',
      'chat',
      '--ttl',
      '90000',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^igw: MintEphemeralToken: .*86400.* \(VALIDATION_ERROR\)\n$/);
  });
});

describe('igw cache', () => {
  it('purges a workspace, revalidates tags and lists the policies', async () => {
    const purged = await igw(['cache', 'purge', '--workspace', 'default']);
    expect(purged).toMatchObject({ code: 0, stderr: '' });
    expect(purged.stdout).toMatch(/^Purged the cache of workspace 'default' \(generation \d+\)\.\n$/);

    const revalidated = await igw([
      'cache',
      'revalidate',
      '--workspace',
      'default',
      '--tag',
      'a',
      '--tag',
      'b',
    ]);
    expect(revalidated).toEqual({
      code: 0,
      stdout: "Invalidated 2 tags in workspace 'default'.\n",
      stderr: '',
    });

    const policies = await igw(['cache', 'policies', '--json']);
    expect(policies.code).toBe(0);
    expect(Array.isArray(JSON.parse(policies.stdout))).toBe(true);
    const table = await igw(['cache', 'policies']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^(NAME +WORKSPACE +TTL|No cache policies\.)/);
  });
});

describe('igw routes', () => {
  it('sets a route (in force when it returns), lists it, refuses an unknown provider, deletes it', async () => {
    const set = await igw([
      'routes',
      'set',
      'cli-chat',
      '--target',
      'openai/gpt-4o-mini,weight=3',
      '--target',
      'anthropic/claude-3-5-haiku-latest,priority=1',
      '--max-attempts',
      '2',
      '--json',
    ]);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(set.stdout)).toMatchObject({
      model: 'cli-chat',
      workspaceId: null,
      targets: [
        { model: 'openai/gpt-4o-mini', weight: 3, priority: 0 },
        { model: 'anthropic/claude-3-5-haiku-latest', weight: 1, priority: 1 },
      ],
      retry: { maxAttempts: 2, backoffMs: 100 },
    });
    const table = await igw(['routes', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^MODEL +WORKSPACE +STRATEGY +ATTEMPTS +SHARED +TARGETS\n/);
    expect(table.stdout).toMatch(
      /\ncli-chat +all +weighted +2 +no +p0: openai\/gpt-4o-mini \(3\); p1: anthropic\/claude-3-5-haiku-latest \(1\)\n/,
    );
    const refused = await igw(['routes', 'set', 'cli-bad', '--target', 'azure/gpt-4o']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^igw: UpsertModelRoute: .*provider 'azure'.* \(VALIDATION_ERROR\)\n$/);
    expect(await igw(['routes', 'delete', 'cli-chat'])).toEqual({
      code: 0,
      stdout: "Deleted the tenant-wide route 'cli-chat'.\n",
      stderr: '',
    });
    expect((await igw(['routes', 'list'])).stdout).toBe('No model routes.\n');
  });
});

describe('igw tenants and orgs', () => {
  it('provisions a child with the provisioning key from stdin and no PAT', async () => {
    const run = await igw(['tenants', 'provision', '--name', 'Child', '--provisioning-key-stdin'], {
      input: gateway.credentials.provisioningKey,
      env: { IGW_TOKEN: undefined },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^api key +tt_sk_\S+$/m);
    expect(run.stdout).toMatch(/^workspace +default$/m);
    expect(run.stderr).toBe('igw: the API key is shown once: store it now\n');
    expect(everything(run)).not.toContain(gateway.credentials.provisioningKey);
  });

  it('creates an organisation with a referral, anonymously, as JSON', async () => {
    const run = await igw(
      ['orgs', 'create', '--name', 'Acme', '--email', 'a@b.c', '--referral', 'partner.x', '--json'],
      { env: { IGW_TOKEN: undefined } },
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const created = JSON.parse(run.stdout) as {
      organization: { name: string; referral: string };
      pat: { token: string };
    };
    expect(created.organization).toMatchObject({ name: 'Acme', referral: 'partner.x' });
    expect(created.pat.token).toMatch(/^tt_pat_/);
  });
});

describe('igw exit codes and help', () => {
  it('exits 2 on an unknown option', async () => {
    const run = await igw(['connections', 'list', '--bogus']);
    expect(run).toEqual({ code: 2, stdout: '', stderr: "igw: unknown option '--bogus' (USAGE_ERROR)\n" });
  });

  it('exits 3 on a bad token, as text and as JSON', async () => {
    const env = { IGW_TOKEN: 'not-a-real-token' };
    const run = await igw(['connections', 'list'], { env });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/\(UNAUTHENTICATED\)\n$/);
    const json = await igw(['connections', 'list', '--json'], { env });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
  });

  it('exits 3 without a token', async () => {
    const run = await igw(['cache', 'policies'], { env: { IGW_TOKEN: undefined } });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/\(NO_TOKEN\)\n$/);
  });

  it('prints help with examples for a subcommand, exit 0', async () => {
    const run = await igw(['connections', 'add', '--help'], {
      env: { IGW_URL: undefined, IGW_TOKEN: undefined },
    });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage: igw connections add \[options\] <provider>/);
    for (const flag of [
      '--key-stdin',
      '--key-file <path>',
      '--daily-cap-usd <usd>',
      '--base-url <url>',
      'Examples:',
    ]) {
      expect(run.stdout).toContain(flag);
    }
  });
});
