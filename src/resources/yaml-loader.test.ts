import { describe, expect, it } from 'vitest';
import { isResourceFileName, keyOfDocument, parseResourceDocuments, resourceKey } from './yaml-loader.ts';

describe('parseResourceDocuments', () => {
  it('returns every non-empty document of a multi-document file', () => {
    const parsed = parseResourceDocuments('---\nkind: A\n---\n# only a comment\n---\nkind: B\n');
    expect(parsed).toEqual({ documents: [{ kind: 'A' }, { kind: 'B' }], errors: [] });
  });

  it('unwraps kind: List and JSON arrays', () => {
    const parsed = parseResourceDocuments('{"kind": "List", "items": [{"kind": "A"}, [{"kind": "B"}]]}');
    expect(parsed.documents).toEqual([{ kind: 'A' }, { kind: 'B' }]);
  });

  it('reports a syntax error and keeps the documents that parsed', () => {
    const parsed = parseResourceDocuments('kind: A\n---\nkind: [unclosed\n');
    expect(parsed.documents).toEqual([{ kind: 'A' }]);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]).toMatch(/^document 2: /);
  });

  it('reads an empty file as no documents', () => {
    expect(parseResourceDocuments('')).toEqual({ documents: [], errors: [] });
  });
});

describe('isResourceFileName', () => {
  it.each([
    ['tenant.yaml', true],
    ['tenant.YML', true],
    ['tenant.json', true],
    ['.tenant.yaml', false],
    ['..data', false],
    ['tenant.yaml.swp', false],
    ['notes.txt', false],
  ])('%s -> %s', (name, expected) => {
    expect(isResourceFileName(name)).toBe(expected);
  });
});

describe('keyOfDocument', () => {
  it('identifies a document by kind, namespace and name, ignoring the namespace of a Tenant', () => {
    expect(keyOfDocument({ kind: 'Connection', metadata: { name: 'a', namespace: 'tenant-x' } })).toBe(
      'Connection/tenant-x/a',
    );
    expect(keyOfDocument({ kind: 'Tenant', metadata: { name: 'x', namespace: 'oops' } })).toBe(
      resourceKey('Tenant', 'x', undefined),
    );
    expect(keyOfDocument({ kind: 'Tenant' })).toBeUndefined();
    expect(keyOfDocument('text')).toBeUndefined();
  });
});
