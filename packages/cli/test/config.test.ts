import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { locateConfigFile, resolveConfig } from '../src/config.ts';
import { SecretReader } from '../src/secrets.ts';
import { fakeControlPlane, removeTemporaryDirectories, runCli, temporaryDirectory } from './harness.ts';

afterAll(removeTemporaryDirectories);

const POSIX = process.platform !== 'win32';

function directory(): string {
  return temporaryDirectory();
}

function configFile(content: unknown, mode = 0o600): string {
  const path = join(directory(), 'config.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  chmodSync(path, mode);
  return path;
}

function fileWith(content: string): string {
  const path = join(directory(), 'token');
  writeFileSync(path, content);
  return path;
}

function environment(env: Record<string, string | undefined>, stdin = '') {
  const stderr = { write() {} };
  return { env, homeDir: '/nonexistent-home', secrets: new SecretReader(Readable.from([stdin]), stderr) };
}

describe('locateConfigFile', () => {
  it('takes --config, then IGW_CONFIG, then $XDG_CONFIG_HOME/igw, then ~/.config/igw', () => {
    expect(locateConfigFile({ config: '/a.json' }, environment({ IGW_CONFIG: '/b.json' }))).toEqual({
      path: '/a.json',
      explicit: true,
    });
    expect(locateConfigFile({}, environment({ IGW_CONFIG: '/b.json', XDG_CONFIG_HOME: '/x' }))).toEqual({
      path: '/b.json',
      explicit: true,
    });
    expect(locateConfigFile({}, environment({ XDG_CONFIG_HOME: '/x' }))).toEqual({
      path: join('/x', 'igw', 'config.json'),
      explicit: false,
    });
    expect(locateConfigFile({}, environment({}))).toEqual({
      path: join('/nonexistent-home', '.config', 'igw', 'config.json'),
      explicit: false,
    });
  });
});

describe('resolveConfig', () => {
  const file = () => configFile({ url: 'http://file.test', token: 'file-token' });

  it('prefers flags over the environment over the config file, setting by setting', async () => {
    const config = file();
    expect(await resolveConfig({ config }, environment({}), true)).toEqual({
      url: 'http://file.test',
      urlSource: 'file',
      token: 'file-token',
      tokenSource: 'file',
    });
    expect(
      await resolveConfig(
        { config },
        environment({ IGW_URL: 'http://env.test', IGW_TOKEN: 'env-token' }),
        true,
      ),
    ).toEqual({ url: 'http://env.test', urlSource: 'env', token: 'env-token', tokenSource: 'env' });
    expect(
      await resolveConfig(
        { config, url: 'http://flag.test', tokenFile: fileWith('flag-token\n') },
        environment({ IGW_URL: 'http://env.test', IGW_TOKEN: 'env-token' }),
        true,
      ),
    ).toEqual({ url: 'http://flag.test', urlSource: 'flag', token: 'flag-token', tokenSource: 'flag' });
    expect(
      await resolveConfig(
        { config, tokenStdin: true },
        environment({ IGW_TOKEN: 'env-token' }, 'stdin-token\n'),
        true,
      ),
    ).toMatchObject({ url: 'http://file.test', token: 'stdin-token', tokenSource: 'flag' });
  });

  it('reads no config file when flags and the environment settle everything', async () => {
    const env = environment({
      IGW_URL: 'http://env.test',
      IGW_TOKEN: 't',
      IGW_CONFIG: '/nonexistent/igw.json',
    });
    await expect(resolveConfig({}, env, true)).resolves.toMatchObject({ url: 'http://env.test' });
    await expect(
      resolveConfig({}, environment({ IGW_CONFIG: '/nonexistent/igw.json' }), false),
    ).rejects.toMatchObject({
      code: 'BAD_CONFIG',
      exitCode: 2,
    });
  });

  it('treats an empty variable as unset, and a missing default config file as none', async () => {
    const env = environment({ IGW_URL: 'http://env.test', IGW_TOKEN: '  ', XDG_CONFIG_HOME: directory() });
    await expect(resolveConfig({}, env, false)).resolves.toEqual({
      url: 'http://env.test',
      urlSource: 'env',
    });
    await expect(resolveConfig({}, env, true)).rejects.toMatchObject({ code: 'NO_TOKEN', exitCode: 3 });
    await expect(
      resolveConfig({}, environment({ XDG_CONFIG_HOME: directory() }), false),
    ).rejects.toMatchObject({
      code: 'NO_URL',
      exitCode: 2,
    });
  });

  it('reads the default file under $XDG_CONFIG_HOME/igw', async () => {
    const xdg = directory();
    mkdirSync(join(xdg, 'igw'));
    writeFileSync(join(xdg, 'igw', 'config.json'), JSON.stringify({ url: 'http://xdg.test' }));
    await expect(resolveConfig({}, environment({ XDG_CONFIG_HOME: xdg }), false)).resolves.toEqual({
      url: 'http://xdg.test',
      urlSource: 'file',
    });
  });

  it.runIf(POSIX)('refuses a token from a config file that group or others may read', async () => {
    const config = configFile({ url: 'http://file.test', token: 'file-token' }, 0o644);
    await expect(resolveConfig({ config }, environment({}), true)).rejects.toMatchObject({
      code: 'INSECURE_CONFIG',
      exitCode: 2,
      message: expect.stringContaining(`chmod 600 ${config}`),
    });
    // The URL alone is no secret; IGW_TOKEN makes the file's token irrelevant.
    await expect(resolveConfig({ config }, environment({}), false)).resolves.toMatchObject({
      url: 'http://file.test',
    });
    await expect(resolveConfig({ config }, environment({ IGW_TOKEN: 'env' }), true)).resolves.toMatchObject({
      token: 'env',
    });
  });

  it.each([
    ['not JSON', '{url:', 'is not valid JSON'],
    ['not an object', '[]', 'must hold a JSON object'],
    ['a non-string url', '{"url": 8081}', '"url" in the config file'],
  ])('refuses a config file that is %s', async (_name, content, message) => {
    await expect(
      resolveConfig({ config: configFile(content) }, environment({}), false),
    ).rejects.toMatchObject({
      code: 'BAD_CONFIG',
      exitCode: 2,
      message: expect.stringContaining(message),
    });
  });

  it.each([
    ['ftp://control.test', 'must be http or https'],
    ['control.test:8081', 'must be http or https'],
    ['not a url', 'is not an absolute URL'],
    ['http://user:secret@control.test', 'must not carry a user name or password'],
  ])('refuses the URL %s', async (url, message) => {
    await expect(resolveConfig({ url }, environment({}), false)).rejects.toMatchObject({
      code: 'BAD_CONFIG',
      message: expect.stringContaining(message),
    });
  });
});

describe('configuration of a run', () => {
  it('sends the token of the chosen source to the chosen URL', async () => {
    const plane = fakeControlPlane().answer('CachePolicies', { data: { cachePolicies: [] } });
    const config = configFile({ url: 'http://file.test:1', token: 'file-token' });
    await runCli(['cache', 'policies', '--config', config], {
      fetch: plane.fetch,
      env: { IGW_URL: undefined, IGW_TOKEN: undefined },
    });
    await runCli(
      ['cache', 'policies', '--url', 'http://flag.test:2', '--token-file', fileWith('flag-token')],
      {
        fetch: plane.fetch,
        env: { IGW_CONFIG: config },
      },
    );
    expect(plane.requests.map((request) => [request.url, request.headers.authorization])).toEqual([
      ['http://file.test:1/graphql', 'Bearer file-token'],
      ['http://flag.test:2/graphql', 'Bearer flag-token'],
    ]);
  });
});
