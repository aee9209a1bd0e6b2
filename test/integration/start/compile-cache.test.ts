/**
 * Node's compile cache, as the image fills it at build time (scripts/warm-compile-cache.mjs) and
 * `npm start` enables it (scripts/check-node.cjs): with every module in the cache, a role's whole
 * module graph loads without Node's type stripper, which would otherwise stay resident (about
 * 20 MB) for the life of the process. Each case is checked the other way too (an empty cache loads
 * the stripper), so the probe can fail.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const path = mkdtempSync(join(tmpdir(), 'gateway-compile-cache-test-'));
  folders.push(path);
  return path;
}

/** Node's own list of the internal modules it loaded: the stripper is `internal/deps/amaro`. */
const PROBE =
  "process.on('exit', () => console.log(process.moduleLoadList.some((m) => m.includes('amaro'))))";

function strippedTypes(cache: string, script: string[]): boolean {
  const env: Record<string, string | undefined> = { ...process.env, NODE_COMPILE_CACHE: cache };
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(PROBE)}`, ...script],
    { cwd: ROOT, encoding: 'utf8', env, timeout: 60_000 },
  );
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const last = result.stdout.trim().split('\n').at(-1);
  expect(last === 'true' || last === 'false').toBe(true);
  return last === 'true';
}

const IMPORT_GATEWAY = ['--input-type=module', '-e', "await import('./src/main/gateway-role.ts')"];
const IMPORT_STANDALONE = ['--input-type=module', '-e', "await import('./src/main/standalone.ts')"];

describe('the compile cache', () => {
  it('filled by the warm script, loads the gateway and standalone roles without the type stripper', () => {
    const cache = folder();
    expect(strippedTypes(cache, IMPORT_GATEWAY)).toBe(true);

    const warm = spawnSync(process.execPath, ['scripts/warm-compile-cache.mjs'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_COMPILE_CACHE: cache },
      timeout: 120_000,
    });
    expect(warm.status).toBe(0);
    expect(warm.stdout).toMatch(/^warm-compile-cache: \d{3} modules in /);

    expect(strippedTypes(cache, IMPORT_GATEWAY)).toBe(false);
    expect(strippedTypes(cache, IMPORT_STANDALONE)).toBe(false);
    expect(strippedTypes(cache, ['src/main/cli.ts', 'help'])).toBe(false);
  });

  it('refuses to run without a folder to fill', () => {
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.NODE_COMPILE_CACHE;
    const warm = spawnSync(process.execPath, ['scripts/warm-compile-cache.mjs'], {
      cwd: ROOT,
      encoding: 'utf8',
      env,
    });
    expect(warm.status).toBe(2);
    expect(warm.stderr).toContain('set NODE_COMPILE_CACHE');
  });

  it('is enabled by the start scripts’ preload: the second start loads no type stripper', () => {
    const temp = folder();
    const start = ['--require', './scripts/check-node.cjs', 'src/main/cli.ts', 'help'];
    const run = () => {
      const env: Record<string, string | undefined> = { ...process.env, TMPDIR: temp };
      delete env.NODE_COMPILE_CACHE;
      const result = spawnSync(
        process.execPath,
        ['--import', `data:text/javascript,${encodeURIComponent(PROBE)}`, ...start],
        { cwd: ROOT, encoding: 'utf8', env, timeout: 60_000 },
      );
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('usage: inference-gateway');
      return result.stdout.trim().split('\n').at(-1);
    };
    expect(run()).toBe('true');
    expect(run()).toBe('false');
  });
});
