/**
 * fastify's schema compilers (ajv and fast-json-stringify: about a hundred modules and 4 MiB of RSS)
 * loaded by the first route that declares a schema rather than by every `Fastify()`. No route of
 * the gateway or the control plane declares one: they validate their bodies themselves.
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type Factory = (...args: unknown[]) => unknown;

// Resolved from fastify's own place: the compilers are its dependencies, not ours.
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

/** A compiler factory that requires its package on first call (each package exports a selector). */
function loadedOnFirstCall(name: string): Factory {
  let factory: Factory | undefined;
  return (...args) => {
    factory ??= (fromFastify(name) as () => Factory)();
    return factory(...args);
  };
}

export const lazySchemaController = {
  compilersFactory: {
    buildValidator: loadedOnFirstCall('@fastify/ajv-compiler'),
    buildSerializer: loadedOnFirstCall('@fastify/fast-json-stringify-compiler'),
  },
} as NonNullable<FastifyServerOptions['schemaController']>;
