/**
 * The client tooling (packages/*) is publishable as it is: it talks to the service over HTTP only,
 * so no package imports the service's sources, a package reaches another only by its name, and the
 * client SDK (which runs in browsers) imports nothing of Node's. Read from the source text, tests
 * excluded, with every `import`/`export ... from` and dynamic `import()`.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const PACKAGES = resolve(import.meta.dirname, '../../packages');
const SPECIFIER = /(?:(?:import|export)\s[^;'"]*?from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g;
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function importsOf(name: string): { file: string; specifier: string }[] {
  return sourceFiles(join(PACKAGES, name, 'src')).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((match) => ({
      file: relative(PACKAGES, file),
      specifier: match[1] as string,
    })),
  );
}

const NAMES = readdirSync(PACKAGES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe('packages/', () => {
  it('holds the four clients', () => {
    expect(NAMES.sort()).toEqual(['admin', 'cli', 'client', 'mcp']);
  });

  it.each(NAMES)('%s never reaches outside its own folder by a relative path', (name) => {
    const own = join(PACKAGES, name);
    const escaping = importsOf(name).filter(
      ({ file, specifier }) =>
        specifier.startsWith('.') &&
        relative(own, resolve(PACKAGES, dirname(file), specifier)).startsWith('..'),
    );
    expect(escaping).toEqual([]);
  });

  it('the client SDK imports nothing of Node (it runs in browsers)', () => {
    const nodeOnly = importsOf('client').filter(
      ({ specifier }) => NODE_BUILTINS.has(specifier) || specifier === 'undici',
    );
    expect(nodeOnly).toEqual([]);
  });
});
