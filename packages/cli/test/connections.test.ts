import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  connectionRecord,
  fakeControlPlane,
  removeTemporaryDirectories,
  runCli,
  temporaryDirectory,
} from './harness.ts';

afterAll(removeTemporaryDirectories);

const SECRET = 'sk-unit-provider-secret-0123456789';

function secretFile(name: string, content: string): string {
  const path = join(temporaryDirectory(), name);
  writeFileSync(path, content);
  chmodSync(path, 0o600);
  return path;
}

function addPlane() {
  return fakeControlPlane().answer('UpsertProviderCredential', {
    data: { upsertProviderCredential: connectionRecord() },
  });
}

describe('connections add', () => {
  it('sends the key from stdin, the slug, the extras and the daily cap in exact micros', async () => {
    const plane = addPlane();
    const result = await runCli(
      [
        'connections',
        'add',
        'openai',
        '--slug',
        'mine',
        '--key-stdin',
        '--base-url',
        'http://upstream.test/v1',
        '--workspace',
        'default',
        '--default-model',
        'gpt-4o-mini',
        '--daily-cap-usd',
        '2.5',
      ],
      { stdin: `${SECRET}\n`, fetch: plane.fetch },
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(plane.requests).toHaveLength(1);
    expect(plane.requests[0]?.variables).toEqual({
      provider: 'openai',
      slug: 'mine',
      apiKey: SECRET,
      baseUrl: 'http://upstream.test/v1',
      workspaceId: 'default',
      defaultModel: 'gpt-4o-mini',
      dailyCapMicros: 2_500_000,
    });
    expect(result.stdout).toMatch(/^slug +mine$/m);
    expect(result.stdout).toMatch(/^daily cap +\$2\.50$/m);
    expect(result.stdout).not.toContain(SECRET);
  });

  it.each([
    ['0.3', 300_000],
    ['0.1', 100_000],
    ['2.5', 2_500_000],
    ['0.000001', 1],
    ['0', 0],
    ['1234.567891', 1_234_567_891],
  ])('converts --daily-cap-usd %s to %i micros without floating-point drift', async (usd, micros) => {
    const plane = addPlane();
    const result = await runCli(['connections', 'add', 'openai', '--daily-cap-usd', usd], {
      fetch: plane.fetch,
    });
    expect(result.code).toBe(0);
    expect(plane.requests[0]?.variables.dailyCapMicros).toBe(micros);
  });

  it.each([['0.1234567'], ['-1'], ['1e3'], ['$5'], ['1,000'], ['abc']])(
    'refuses --daily-cap-usd %s as a usage error before calling the service',
    async (usd) => {
      const plane = addPlane();
      const result = await runCli(['connections', 'add', 'openai', `--daily-cap-usd=${usd}`], {
        fetch: plane.fetch,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^igw: option '--daily-cap-usd <usd>' argument .* is invalid\..* \(USAGE_ERROR\)\n$/,
      );
      expect(plane.requests).toEqual([]);
    },
  );

  it('removes the cap with an explicit null and leaves every other field out', async () => {
    const plane = addPlane();
    const result = await runCli(['connections', 'add', 'openai', '--slug', 'mine', '--remove-daily-cap'], {
      fetch: plane.fetch,
    });
    expect(result.code).toBe(0);
    expect(plane.requests[0]?.variables).toEqual({ provider: 'openai', slug: 'mine', dailyCapMicros: null });
  });

  it('reads the key from --key-file and the Bedrock secret from its own file', async () => {
    const plane = addPlane();
    const result = await runCli(
      [
        'connections',
        'add',
        'bedrock',
        '--slug',
        'aws',
        '--aws-access-key-id',
        'AKIAUNITTEST',
        '--aws-secret-access-key-file',
        secretFile('aws', 'aws-secret-value\n'),
        '--aws-region',
        'us-east-1',
      ],
      { fetch: plane.fetch },
    );
    expect(result.code).toBe(0);
    expect(plane.requests[0]?.variables).toEqual({
      provider: 'bedrock',
      slug: 'aws',
      awsAccessKeyId: 'AKIAUNITTEST',
      awsSecretAccessKey: 'aws-secret-value',
      awsRegion: 'us-east-1',
    });

    const file = addPlane();
    await runCli(['connections', 'add', 'anthropic', '--key-file', secretFile('key', `  ${SECRET}\n`)], {
      fetch: file.fetch,
    });
    expect(file.requests[0]?.variables).toEqual({ provider: 'anthropic', apiKey: SECRET });
  });

  it('sends a Vertex service account file as gcpServiceAccountJson, spelled providers as given', async () => {
    const plane = addPlane();
    const json = '{"type":"service_account","client_email":"a@p.iam.gserviceaccount.com"}';
    const result = await runCli(
      [
        'credentials',
        'add',
        'vertex',
        '--slug',
        'gcp',
        '--service-account-file',
        secretFile('sa.json', json),
        '--vertex-project',
        'p',
        '--vertex-region',
        'us-central1',
      ],
      { fetch: plane.fetch },
    );
    expect(result.code).toBe(0);
    expect(plane.requests[0]?.variables).toEqual({
      provider: 'vertex',
      slug: 'gcp',
      gcpServiceAccountJson: json,
      vertexProject: 'p',
      vertexRegion: 'us-central1',
    });
    await runCli(['connections', 'add', 'bedrock-mantle'], { fetch: plane.fetch });
    expect(plane.requests[1]?.variables).toEqual({ provider: 'bedrockMantle' });
  });

  it('refuses two secrets on stdin, both flags of one secret, an empty stdin and a missing file', async () => {
    const plane = addPlane();
    const cases: [string[], string][] = [
      [['connections', 'add', 'bedrock', '--key-stdin', '--aws-secret-access-key-stdin'], 'a'],
      [['--token-stdin', 'connections', 'add', 'openai', '--key-stdin'], 'a'],
      [['connections', 'add', 'openai', '--key-stdin', '--key-file', '/tmp/x'], 'a'],
      [['connections', 'add', 'openai', '--key-stdin'], ' \n'],
      [['connections', 'add', 'openai', '--key-file', '/nonexistent/igw-key'], ''],
    ];
    for (const [argv, stdin] of cases) {
      const result = await runCli(argv, { stdin, fetch: plane.fetch });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^igw: .+ \([A-Z_]+\)\n$/);
    }
    expect(plane.requests).toEqual([]);
  });

  it('refuses an unknown provider with exit 2 before reading stdin or calling the service', async () => {
    const plane = addPlane();
    let stdinRead = false;
    const stdin = {
      // biome-ignore lint/correctness/useYield: a stdin that records being read, and holds nothing.
      async *[Symbol.asyncIterator]() {
        stdinRead = true;
      },
    };
    const result = await runCli(['connections', 'add', 'opnai', '--key-stdin'], {
      stdin,
      fetch: plane.fetch,
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "igw: unknown provider 'opnai': use one of openai, anthropic, gemini, bedrock, bedrock-mantle, vertex, openai-compatible (USAGE_ERROR)\n",
    });
    expect(stdinRead).toBe(false);
    expect(plane.requests).toEqual([]);
  });
});

describe('connections list', () => {
  const list = [
    connectionRecord(),
    connectionRecord({
      id: 'default/local',
      slug: 'local',
      provider: 'openai-compatible',
      kind: 'openaiCompatible',
      workspaceId: 'research',
      dailyCapMicros: null,
      spentTodayMicros: 1_234_567,
      keyHint: '',
      status: 'KeyMissing',
      ready: false,
    }),
  ];

  it('prints an aligned table for people', async () => {
    const plane = fakeControlPlane().answer('ProviderCredentials', { data: { providerCredentials: list } });
    const result = await runCli(['connections', 'list'], { fetch: plane.fetch });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        'SLUG   PROVIDER           WORKSPACE  DAILY CAP  SPENT TODAY  KEY       STATUS',
        'mine   openai             all            $2.50        $0.00  sk-…cdef  Ready',
        'local  openai-compatible  research        none    $1.234567  -         KeyMissing',
        '',
      ].join('\n'),
    );
  });

  it('prints the SDK result as one JSON document with --json, before or after the command', async () => {
    const plane = fakeControlPlane().answer('ProviderCredentials', { data: { providerCredentials: list } });
    for (const argv of [
      ['connections', 'list', '--json', '--workspace', 'research'],
      ['--json', 'credentials', 'list', '--workspace', 'research'],
    ]) {
      const result = await runCli(argv, { fetch: plane.fetch });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual(list);
    }
    expect(plane.requests.map((request) => request.variables)).toEqual([
      { workspaceId: 'research' },
      { workspaceId: 'research' },
    ]);
  });

  it('says so when there are none', async () => {
    const plane = fakeControlPlane().answer('ProviderCredentials', { data: { providerCredentials: [] } });
    expect((await runCli(['connections', 'list'], { fetch: plane.fetch })).stdout).toBe('No Connections.\n');
  });

  it('never lets the service write terminal control sequences', async () => {
    const plane = fakeControlPlane().answer('ProviderCredentials', {
      data: { providerCredentials: [connectionRecord({ status: 'Bad\u001b[2J\rStatus' })] },
    });
    const result = await runCli(['connections', 'list'], { fetch: plane.fetch });
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).not.toContain('\r');
    expect(result.stdout).toContain('Bad [2J Status');
  });
});

describe('connections test and revoke', () => {
  it('exits 0 when the probe passes and 1 when it fails, printing the result either way', async () => {
    const plane = fakeControlPlane().answer('TestProviderCredential', {
      data: { testProviderCredential: { ok: true, status: 200, message: 'ok', latencyMs: 12 } },
    });
    const passed = await runCli(['connections', 'test', 'mine'], { fetch: plane.fetch });
    expect(passed.code).toBe(0);
    expect(passed.stdout).toMatch(/^ok +yes$/m);
    expect(plane.requests[0]?.variables).toEqual({ slug: 'mine' });

    plane.answer('TestProviderCredential', {
      data: {
        testProviderCredential: { ok: false, status: 401, message: 'Incorrect API key', latencyMs: 40 },
      },
    });
    const failed = await runCli(['connections', 'test', 'mine', '--json'], { fetch: plane.fetch });
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toEqual({
      ok: false,
      status: 401,
      message: 'Incorrect API key',
      latencyMs: 40,
    });
  });

  it('revokes by slug, and reports an unknown slug with exit 1 and its code', async () => {
    const plane = fakeControlPlane().answer('RevokeProviderCredential', {
      data: { revokeProviderCredential: true },
    });
    const revoked = await runCli(['connections', 'revoke', 'mine'], { fetch: plane.fetch });
    expect(revoked).toEqual({ code: 0, stdout: "Revoked Connection 'mine'.\n", stderr: '' });
    const json = await runCli(['credentials', 'revoke', 'mine', '--json'], { fetch: plane.fetch });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(json.stdout)).toEqual({ revoked: true, slug: 'mine' });

    plane.answer('RevokeProviderCredential', {
      errors: [{ message: "no provider credential 'gone' in your tenant", code: 'NOT_FOUND' }],
    });
    const missing = await runCli(['connections', 'revoke', 'gone'], { fetch: plane.fetch });
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: "igw: RevokeProviderCredential: no provider credential 'gone' in your tenant (NOT_FOUND)\n",
    });
  });
});
