import { describe, expect, it } from 'vitest';
import { refuseSecretsOnArgv } from '../src/secrets.ts';
import { fakeControlPlane, runCli } from './harness.ts';

const SECRET = 'sk-argv-secret-0123456789';

describe('secrets on the command line', () => {
  it.each([
    [['connections', 'add', 'openai', '--key', SECRET], '--key-stdin or --key-file'],
    [['connections', 'add', 'openai', `--key=${SECRET}`], '--key-stdin or --key-file'],
    [['connections', 'add', 'openai', '--api-key', SECRET], '--key-stdin or --key-file'],
    [['connections', 'add', 'bedrock', '--aws-secret-access-key', SECRET], '--aws-secret-access-key-stdin'],
    [['connections', 'add', 'bedrock', '--aws-session-token', SECRET], '--aws-session-token-file'],
    [['connections', 'add', 'vertex', '--service-account-json', SECRET], '--service-account-file'],
    [['--token', SECRET, 'connections', 'list'], 'IGW_TOKEN, --token-file'],
    [['tenants', 'provision', '--name', 'x', '--provisioning-key', SECRET], '--provisioning-key-file'],
  ])('refuses %j with exit 2, names the right flag, never repeats the value', async (argv, instead) => {
    const plane = fakeControlPlane();
    const result = await runCli(argv, { fetch: plane.fetch });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(instead);
    expect(result.stderr).toMatch(/\(SECRET_ON_COMMAND_LINE\)\n$/);
    expect(result.stderr).not.toContain(SECRET);
    expect(result.stdout).toBe('');
    expect(plane.requests).toEqual([]);
  });

  it.each(['tt_pat_abc', 'tt_prov_abc', 'tt_sk_abc', 'tt_ev_abc', '--slug=tt_pat_abc'])(
    'refuses a value with the gateway prefix %s wherever it is',
    (value) => {
      expect(() => refuseSecretsOnArgv(['connections', 'list', value])).toThrow(
        expect.objectContaining({ code: 'SECRET_ON_COMMAND_LINE', exitCode: 2 }),
      );
    },
  );

  it('refuses secrets in JSON mode as a JSON error', async () => {
    const result = await runCli(['--json', 'connections', 'add', 'openai', '--key', SECRET]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr).error.code).toBe('SECRET_ON_COMMAND_LINE');
    expect(result.stderr).not.toContain(SECRET);
  });

  it('lets the look-alike flags through', () => {
    expect(() =>
      refuseSecretsOnArgv([
        'connections',
        'add',
        'openai',
        '--key-stdin',
        '--key-file',
        'k',
        '--slug',
        'sk-models',
      ]),
    ).not.toThrow();
  });
});
