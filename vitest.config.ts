import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql ships CommonJS and ESM builds; @graphql-tools (loaded by Node) gets the CommonJS one,
    // so our code must too, or schemas from "another realm" are refused. Node itself resolves the
    // same way at run time; only Vite's module-field preference differs.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Integration suites start real servers (redis-server, kube-apiserver); give them room on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
