/**
 * Packages only some deployments need are loaded when first needed, not at start: ioredis (memory
 * stores never use it), @smithy's SigV4 signer and event-stream codec (Bedrock only), jose (Vertex
 * only) and @opentelemetry/core (tracing only). Each holds megabytes of heap for the life of the
 * process once loaded. A child process imports the gateway's and the standalone's whole module
 * graphs and opens the memory stores, with a loader hook listing every module loaded.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const stateDir = mkdtempSync(join(tmpdir(), 'gateway-lazy-modules-'));

afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const HOOK = `
import { registerHooks } from 'node:module';
globalThis.loadedUrls = [];
registerHooks({ load(url, context, nextLoad) { globalThis.loadedUrls.push(url); return nextLoad(url, context); } });
`;

/** The npm packages (scope included) whose modules the child loaded while running `script`. */
function packagesLoadedBy(script: string): Set<string> {
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(HOOK)}`,
      '--input-type=module',
      '-e',
      `${script}\nconsole.log(JSON.stringify(globalThis.loadedUrls));`,
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, STATE_DIR: stateDir } },
  );
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const urls = JSON.parse(result.stdout.trim().split('\n').at(-1) as string) as string[];
  const packages = new Set<string>();
  for (const url of urls) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match !== null) packages.add(match[1] as string);
  }
  return packages;
}

const LAZY = ['ioredis', '@smithy/signature-v4', '@smithy/eventstream-codec', 'jose', '@opentelemetry/core'];

describe('modules loaded at start', () => {
  it('leave out what only Redis, Bedrock, Vertex or tracing needs, on the memory stores', () => {
    const loaded = packagesLoadedBy(`
      await import('./src/main/gateway-role.ts');
      await import('./src/main/standalone.ts');
      const { openStores } = await import('./src/main/open-stores.ts');
      const stores = await openStores({
        stateDir: process.env.STATE_DIR,
        cacheMemoryBytes: 1024 * 1024,
        semanticCache: { mirrorBytes: 0 },
      });
      await stores.runtime.close?.();
    `);
    // The probe sees packages: fastify and undici are loaded by every role.
    expect(loaded.has('fastify')).toBe(true);
    expect(loaded.has('undici')).toBe(true);
    for (const name of LAZY) expect([name, loaded.has(name)]).toEqual([name, false]);
  });

  it('loads each of them where it is used', () => {
    const loaded = packagesLoadedBy(`
      await import('./src/stores/redis-runtime-store.ts');
      const { createSigV4Signer } = await import('./src/providers/aws-sigv4.ts');
      const sign = createSigV4Signer({
        service: 'bedrock',
        region: 'us-east-1',
        credential: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      });
      await sign({ method: 'POST', url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse', headers: {}, body: '{}' });
      const { encodeAwsEventStreamFrame } = await import('./src/sse/aws-event-stream.ts');
      encodeAwsEventStreamFrame('messageStart', { role: 'assistant' });
    `);
    for (const name of ['ioredis', '@smithy/signature-v4', '@smithy/eventstream-codec']) {
      expect([name, loaded.has(name)]).toEqual([name, true]);
    }
  });
});
