/**
 * `npm start` on a Node too old to run TypeScript (before 22.19) says what is needed and how to
 * get it, instead of failing with ERR_UNKNOWN_FILE_EXTENSION on the first .ts file: the start
 * scripts load scripts/check-node.cjs first. Run with a real old Node when the machine has one
 * (Debian's /usr/bin/node, say); without one, with the version faked (GATEWAY_TEST_NODE_VERSION),
 * said so in the output rather than skipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CHECK = join(ROOT, 'scripts/check-node.cjs');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

function versionOf(node: string): string | undefined {
  const result = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

const tooOld = (version: string) => {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < 22 || (major === 22 && minor < 19);
};

/** A Node older than 22.19 on this machine: OLD_NODE, the usual system places, then PATH. */
function findOldNode(): { node: string; version: string } | undefined {
  const candidates = [
    process.env.OLD_NODE,
    '/usr/bin/node',
    '/usr/local/bin/node',
    ...(process.env.PATH ?? '').split(delimiter).map((directory) => join(directory, 'node')),
  ];
  for (const node of candidates) {
    if (node === undefined || !existsSync(node)) continue;
    const version = versionOf(node);
    if (version !== undefined && tooOld(version)) return { node, version };
  }
  return undefined;
}

/** Runs a package.json script the way npm does (`sh -c`, from the package root) with `node` first on PATH. */
function runScript(name: string, nodeDirectory: string, env: Record<string, string> = {}) {
  return spawnSync('sh', ['-c', scripts[name]!], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, ...env, PATH: `${nodeDirectory}${delimiter}${process.env.PATH ?? ''}` },
  });
}

function expectTheMessage(result: ReturnType<typeof spawnSync>, version: string): void {
  const stderr = String(result.stderr);
  expect(result.status).toBe(1);
  expect(stderr).toContain(`needs Node.js 22.19 or newer; this is Node ${version}`);
  expect(stderr).toContain('type stripping');
  expect(stderr).toContain('make run');
  expect(stderr).toContain('~/.cache/gateway-node');
  expect(stderr).toContain('nvm install 24');
  // Node's own failure (`TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension ".ts"`) never comes.
  expect(stderr).not.toContain('Unknown file extension');
  expect(stderr).not.toContain('node:internal');
  // Nothing of the service ran: no settings read, no banner, no listener.
  expect(String(result.stdout)).toBe('');
}

describe('the Node version check of npm start', () => {
  it('loads before any TypeScript in the start scripts', () => {
    // The V8 flag first (the image's NODE_OPTIONS, see the Dockerfile), then the check, then the code.
    expect(scripts.start).toBe(
      'node --max-semi-space-size=8 --require ./scripts/check-node.cjs src/main/cli.ts standalone',
    );
    expect(scripts.gateway).toBe(
      'node --max-semi-space-size=8 --require ./scripts/check-node.cjs src/main/cli.ts gateway',
    );
  });

  it('prints what is needed and how to get it on a Node older than 22.19, and exits 1', () => {
    const old = findOldNode();
    if (old !== undefined) {
      for (const name of ['start', 'gateway'])
        expectTheMessage(runScript(name, dirname(old.node)), old.version);
      // npm itself, on that Node, where it has one: exactly what a user types.
      const npm = join(dirname(old.node), 'npm');
      if (existsSync(npm)) {
        const result = spawnSync(npm, ['start', '--silent'], {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 60_000,
          env: { ...process.env, PATH: `${dirname(old.node)}${delimiter}${process.env.PATH ?? ''}` },
        });
        expect(String(result.stderr)).toContain(`needs Node.js 22.19 or newer; this is Node ${old.version}`);
        expect(String(result.stderr)).not.toContain('Unknown file extension');
        expect(result.status).not.toBe(0);
      }
    } else {
      process.stdout.write(
        'node-version test: no Node older than 22.19 on this machine (set OLD_NODE to one); faking the version instead\n',
      );
      expectTheMessage(
        runScript('start', dirname(process.execPath), { GATEWAY_TEST_NODE_VERSION: '20.20.2' }),
        '20.20.2',
      );
    }
  });

  it.each([
    ['18.20.4', false],
    ['20.20.2', false],
    ['22.18.0', false],
    ['22.19.0', true],
    ['23.0.0', true],
    ['24.11.1', true],
  ])('judges Node %s (supported: %s)', (version, supported) => {
    const result = spawnSync(process.execPath, [CHECK], {
      encoding: 'utf8',
      env: { ...process.env, GATEWAY_TEST_NODE_VERSION: version },
    });
    expect(result.status).toBe(supported ? 0 : 1);
    expect(result.stderr === '').toBe(supported);
  });

  it('adds nothing on this Node: silent, and the program after it runs', () => {
    const result = spawnSync(process.execPath, ['--require', CHECK, '-e', 'process.stdout.write("ran")'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('ran');
  });
});
