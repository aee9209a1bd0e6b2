/**
 * Packages only some deployments need are loaded when first needed, not at start: ioredis (memory
 * stores never use it), @smithy's SigV4 signer and event-stream codec (Bedrock only), jose (Vertex
 * only), @opentelemetry/core (tracing only), fastify's schema compilers (no route declares a
 * schema) and, in a standalone, graphql (its first GraphQL request). Each holds megabytes of heap
 * for the life of the process once loaded. A child process imports the gateway's and the
 * standalone's whole module graphs and opens the memory stores, or starts a whole standalone, with
 * a loader hook listing every module loaded.
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

/** The npm packages (scope included) of module URLs. */
function packagesOf(urls: readonly string[]): Set<string> {
  const packages = new Set<string>();
  for (const url of urls) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match !== null) packages.add(match[1] as string);
  }
  return packages;
}

/** What `script` printed on its last line (JSON), run in a child that lists the modules it loads. */
function runListing(script: string): unknown {
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(HOOK)}`, '--input-type=module', '-e', script],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, STATE_DIR: stateDir } },
  );
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) as string);
}

/** The npm packages (scope included) whose modules the child loaded while running `script`. */
function packagesLoadedBy(script: string): Set<string> {
  return packagesOf(runListing(`${script}\nconsole.log(JSON.stringify(globalThis.loadedUrls));`) as string[]);
}

const LAZY = ['ioredis', '@smithy/signature-v4', '@smithy/eventstream-codec', 'jose', '@opentelemetry/core'];
/** Not loaded by a running standalone until it needs them. */
const LAZY_IN_STANDALONE = [
  ...LAZY,
  'ajv',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'graphql',
  '@graphql-tools/schema',
];

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
        responses: { memoryBytes: 1024 * 1024 },
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

  it('leave graphql and the schema compilers out of a running standalone until a GraphQL request', () => {
    const { atStart, afterGraphQL, status } = runListing(`
      const { startTestGateway } = await import('./test/helpers/test-gateway.ts');
      const gateway = await startTestGateway({}, process.env.STATE_DIR);
      const atStart = [...globalThis.loadedUrls];
      const response = await fetch(gateway.controlUrl + '/graphql', {
        method: 'POST',
        headers: { authorization: 'Bearer ' + gateway.credentials.pat, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      const status = response.status + ' ' + (await response.text());
      const afterGraphQL = [...globalThis.loadedUrls];
      await gateway.running.close();
      console.log(JSON.stringify({ atStart, afterGraphQL, status }));
    `) as { atStart: string[]; afterGraphQL: string[]; status: string };
    const started = packagesOf(atStart);
    expect(started.has('fastify')).toBe(true);
    for (const name of LAZY_IN_STANDALONE) expect([name, started.has(name)]).toEqual([name, false]);
    expect(status).toBe('200 {"data":{"__typename":"Query"}}');
    const served = packagesOf(afterGraphQL);
    for (const name of ['graphql', '@graphql-tools/schema'])
      expect([name, served.has(name)]).toEqual([name, true]);
  });
});
