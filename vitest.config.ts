import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);
const PACKAGES = ['client', 'admin', 'cli', 'mcp'];

export default defineConfig({
  resolve: {
    // graphql ships CommonJS and ESM builds; @graphql-tools (loaded by Node) gets the CommonJS one,
    // so our code must too, or schemas from "another realm" are refused. Node itself resolves the
    // same way at run time; only Vite's module-field preference differs.
    alias: [
      { find: /^graphql$/, replacement: require.resolve('graphql') },
      // The client tooling by package name, from its sources (what the `source` export condition
      // gives Node and TypeScript), so no test needs a build first.
      ...PACKAGES.map((name) => ({
        find: new RegExp(`^@inference-gateway/${name}$`),
        replacement: fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url)),
      })),
    ],
  },
  test: {
    // Integration suites start real servers (redis-server, kube-apiserver); give them room on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
    // `npm test -- unit` runs the first (seconds, no servers but in-process fakes); `npm test --
    // integration` the second; `npm test -- fuzz` the fuzz properties; `npm test -- client` (admin,
    // cli, mcp) one package's; `npm test` all.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/architecture/**/*.test.ts'],
          // Pure modules and in-process fakes: one worker per file would cost more than the tests.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'] },
      },
      // Property-based fuzzing of the HTTP and GraphQL surfaces (test/fuzz/fuzz-budget.ts): a fixed
      // seed and a small budget here; `make fuzz` runs it longer from a random seed.
      {
        extends: true,
        test: { name: 'fuzz', include: ['test/fuzz/**/*.fuzz.test.ts'] },
      },
      // The client tooling (packages/*): one project each, run from their sources.
      ...PACKAGES.map((name) => ({
        extends: true as const,
        test: { name, include: [`packages/${name}/{src,test}/**/*.test.ts`], isolate: false },
      })),
    ],
  },
});
