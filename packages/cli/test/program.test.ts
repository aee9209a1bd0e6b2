import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { CliContext } from '../src/context.ts';
import { buildProgram } from '../src/program.ts';
import { CLI_VERSION } from '../src/version.ts';
import { fakeControlPlane, runCli } from './harness.ts';

/** Every command path of the program: ['connections'], ['connections', 'add'], ... */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands
    .filter((child) => child.name() !== 'help')
    .flatMap((child) => {
      const path = [...prefix, child.name()];
      return [path, ...commandPaths(child, path)];
    });
}

const PATHS = commandPaths(
  buildProgram(
    new CliContext({ stdin: Readable.from([]), stdout: { write() {} }, stderr: { write() {} }, env: {} }),
  ),
);

describe('igw --help', () => {
  it('documents configuration, output and the exit codes at the top level', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: igw \[options\] \[command\]/);
    for (const text of [
      'IGW_URL',
      'IGW_TOKEN',
      'IGW_CONFIG',
      '--json',
      'Exit codes:',
      '0  ok',
      '1  ',
      '2  usage',
      '3  authentication',
    ]) {
      expect(result.stdout).toContain(text);
    }
  });

  it('covers the required commands', () => {
    expect(PATHS.map((path) => path.join(' '))).toEqual(
      expect.arrayContaining([
        'connections list',
        'connections add',
        'connections test',
        'connections revoke',
        'tokens mint',
        'tokens revoke',
        'cache purge',
        'cache revalidate',
        'cache policies',
        'tenants provision',
        'orgs create',
      ]),
    );
  });

  it.each(PATHS.map((path) => [path.join(' '), path]))(
    'has help with examples on `%s --help`',
    async (_name, path) => {
      const result = await runCli([...path, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: igw ${path.join(' ')}`);
      expect(result.stdout).toMatch(/\nExamples:\n {2}(igw|printf) /);
    },
  );

  it('answers the alias and `igw help <command>` too', async () => {
    expect((await runCli(['credentials', 'list', '--help'])).stdout).toContain('Usage: igw connections list');
    expect((await runCli(['help', 'tokens'])).code).toBe(0);
  });

  it('prints the version of package.json', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(CLI_VERSION).toBe(pkg.version);
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});

describe('usage errors (exit 2)', () => {
  it.each([
    [['connections', 'list', '--bogus'], "unknown option '--bogus'"],
    [['connections', 'add'], "missing required argument 'provider'"],
    [['connections', 'test'], "missing required argument 'slug'"],
    [
      ['tokens', 'mint', '--scope', 'chat', '--ttl', '60'],
      "required option '--parent-key <keyId>' not specified",
    ],
    [
      ['tokens', 'mint', '--parent-key', 'k', '--scope', 'chat', '--ttl', '1.5'],
      "option '--ttl <seconds>' argument '1.5' is invalid",
    ],
    [['cache', 'revalidate', '--workspace', 'default'], "required option '--tag <tag>' not specified"],
    [['connections', 'list', 'extra'], 'too many arguments'],
    [['conections', 'list'], "unknown command 'conections' (Did you mean connections?)"],
    [['tokens', 'revoke'], 'give a jti or --all-for-key'],
    [['tokens', 'revoke', 'j', '--all-for-key', 'k'], 'give a jti or --all-for-key'],
    [['connections', 'add', 'openai', '--remove-daily-cap', '--daily-cap-usd', '1'], 'cannot be used with'],
  ])('%j', async (argv, message) => {
    const plane = fakeControlPlane();
    const result = await runCli(argv, { fetch: plane.fetch });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toMatch(/^igw: [^\n]+ \(USAGE_ERROR\)\n$/);
    expect(plane.requests).toEqual([]);
  });

  it('shows the group help on stderr when the subcommand is missing', async () => {
    const result = await runCli(['cache']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: igw cache [options] [command]');
  });

  it('writes the error as JSON on stderr with --json', async () => {
    const result = await runCli(['connections', 'list', '--json', '--bogus']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toEqual({
      error: { code: 'USAGE_ERROR', message: "unknown option '--bogus'" },
    });
  });
});

describe('exit codes of service answers', () => {
  const list = ['connections', 'list'];

  it('maps HTTP 401 to 3 (auth)', async () => {
    const plane = fakeControlPlane().answer('ProviderCredentials', {
      status: 401,
      errors: [{ message: 'unknown or revoked personal access token', code: 'UNAUTHENTICATED' }],
    });
    expect(await runCli(list, { fetch: plane.fetch })).toEqual({
      code: 3,
      stdout: '',
      stderr: 'igw: ProviderCredentials: unknown or revoked personal access token (UNAUTHENTICATED)\n',
    });
  });

  it.each(['FORBIDDEN', 'TENANT_SUSPENDED', 'UNAUTHENTICATED'])('maps %s (HTTP 200) to 3', async (code) => {
    const plane = fakeControlPlane().answer('ProviderCredentials', { errors: [{ message: 'no', code }] });
    expect((await runCli(list, { fetch: plane.fetch })).code).toBe(3);
  });

  it('maps a REST 403 to 3', async () => {
    const plane = fakeControlPlane().answer('POST /provision/tenant', {
      status: 403,
      body: { error: { code: 'FORBIDDEN', message: 'a PAT cannot provision' } },
    });
    const result = await runCli(['tenants', 'provision', '--name', 'x'], {
      fetch: plane.fetch,
      env: { IGW_PROVISIONING_KEY: 'not-a-provisioning-key' },
    });
    expect(result.code).toBe(3);
  });

  it.each(['VALIDATION_ERROR', 'NOT_FOUND', 'BAD_USER_INPUT', 'INTERNAL_SERVER_ERROR'])(
    'maps %s to 1',
    async (code) => {
      const plane = fakeControlPlane().answer('ProviderCredentials', {
        errors: [{ message: 'refused', code }],
      });
      const result = await runCli(list, { fetch: plane.fetch });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`igw: ProviderCredentials: refused (${code})\n`);
    },
  );

  it('maps a transport failure to 1 with NETWORK_ERROR, as JSON with --json', async () => {
    const plane = fakeControlPlane().answer('ProviderCredentials', {
      throws: new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }),
    });
    const result = await runCli([...list, '--json'], { fetch: plane.fetch });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: { code: 'NETWORK_ERROR', message: expect.stringContaining('ECONNREFUSED') },
    });
  });

  it('maps a missing token to 3 before calling the service', async () => {
    const plane = fakeControlPlane();
    const result = await runCli(list, { fetch: plane.fetch, env: { IGW_TOKEN: undefined } });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^igw: no token: .* \(NO_TOKEN\)\n$/);
    expect(plane.requests).toEqual([]);
  });
});
