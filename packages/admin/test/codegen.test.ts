/**
 * The committed generated files are what the generator makes of the committed snapshots and the
 * documents: a document edited without `npm run codegen` fails here (the drift test in
 * test/integration/packages/admin-schema.test.ts does the same from the live server's schema).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTypes, mergeDocuments, SCHEMAS, type SchemaTexts } from '../scripts/generate.ts';
import { defineDocument, defineFragment, SDK_VERSION } from '../src/index.ts';

const PACKAGE = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(PACKAGE, path), 'utf8');

describe('src/generated/', () => {
  it('is exactly what the generator makes of schema/ and the documents', async () => {
    const snapshots = Object.fromEntries(
      SCHEMAS.map((schema) => [schema.name, read(schema.snapshot)]),
    ) as SchemaTexts;
    const files = await generateTypes(snapshots);
    expect(Object.keys(files).sort()).toEqual(SCHEMAS.map((schema) => schema.generated).sort());
    for (const [path, text] of Object.entries(files)) expect(text, path).toBe(read(path));
  });
});

describe('mergeDocuments', () => {
  const fragment = defineFragment('fragment W on Workspace { id }');

  it('keeps each shared fragment once', () => {
    const merged = mergeDocuments([
      defineDocument('query A { workspaces { ...W } }', fragment),
      defineDocument('query B { workspaces { ...W } }', fragment),
    ]);
    expect(
      merged.definitions.map((definition) => ('name' in definition ? definition.name?.value : '')),
    ).toEqual(['A', 'W', 'B']);
  });

  it('refuses two operations of one name, and two different fragments of one name', () => {
    expect(() => mergeDocuments([defineDocument('query A { a }'), defineDocument('query A { b }')])).toThrow(
      /two operations/,
    );
    expect(() =>
      mergeDocuments([
        defineDocument('query A { a { ...W } }', fragment),
        defineDocument('query B { b { ...W } }', defineFragment('fragment W on Workspace { name }')),
      ]),
    ).toThrow(/two fragments/);
  });
});

describe('SDK_VERSION', () => {
  it('is the package version', () => {
    expect(SDK_VERSION).toBe((JSON.parse(read('package.json')) as { version: string }).version);
  });
});
