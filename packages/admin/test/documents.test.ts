/**
 * The documents against the committed schema snapshots (the drift test repeats this against the
 * live server): each is valid, names itself and its root field as the SDK reads them, and together
 * they cover every query and mutation of both schemas.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildSchema,
  type GraphQLSchema,
  isEnumType,
  Kind,
  type OperationDefinitionNode,
  parse,
  validate,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  ADMIN_DOCUMENTS,
  CONTROL_PLANE_DOCUMENTS,
  defineDocument,
  defineFragment,
  PROVIDER_CREDENTIAL_KINDS,
  type TypedDocument,
} from '../src/index.ts';

const PACKAGE = join(import.meta.dirname, '..');
const snapshot = (file: string) => buildSchema(readFileSync(join(PACKAGE, 'schema', file), 'utf8'));

const SCHEMAS: [string, GraphQLSchema, readonly TypedDocument<unknown, unknown>[]][] = [
  ['/graphql', snapshot('control-plane.graphql'), CONTROL_PLANE_DOCUMENTS],
  ['/admin/graphql', snapshot('admin.graphql'), ADMIN_DOCUMENTS],
];

function operationOf(document: TypedDocument<unknown, unknown>): OperationDefinitionNode {
  const operations = parse(document.query).definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  expect(operations).toHaveLength(1);
  return operations[0]!;
}

/** Every root field of a schema, as `query.name` / `mutation.name`. */
function rootFields(schema: GraphQLSchema): string[] {
  return [
    ...Object.keys(schema.getQueryType()?.getFields() ?? {}).map((name) => `query.${name}`),
    ...Object.keys(schema.getMutationType()?.getFields() ?? {}).map((name) => `mutation.${name}`),
  ].sort();
}

describe.each(SCHEMAS)('the documents of %s', (_path, schema, documents) => {
  it.each(documents.map((document) => [document.operationName, document]))(
    '%s is valid against the snapshot',
    (_name, document) => {
      expect(validate(schema, parse(document.query)).map((error) => error.message)).toEqual([]);
    },
  );

  it.each(documents.map((document) => [document.operationName, document]))(
    '%s selects one root field, the one the SDK unwraps',
    (_name, document) => {
      const operation = operationOf(document);
      expect(operation.name?.value).toBe(document.operationName);
      expect(operation.operation).toBe(document.kind);
      const selections = operation.selectionSet.selections;
      expect(selections).toHaveLength(1);
      expect(selections[0]?.kind === Kind.FIELD && selections[0].name.value).toBe(document.rootField);
    },
  );

  it('cover every query and mutation, each once', () => {
    const covered = documents.map((document) => `${document.kind}.${document.rootField}`).sort();
    expect(covered).toEqual(rootFields(schema));
  });

  it('have unique operation names', () => {
    const names = documents.map((document) => document.operationName);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('operation names', () => {
  it('never repeat across the two schemas', () => {
    const names = [...CONTROL_PLANE_DOCUMENTS, ...ADMIN_DOCUMENTS].map((document) => document.operationName);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('defineDocument', () => {
  it('reads the kind, the operation name and the root field, and appends the fragments', () => {
    const fragment = defineFragment('fragment F on Workspace { id }');
    const document = defineDocument('mutation Do($a: String!) {\n  act(a: $a) { ...F }\n}', fragment);
    expect(document).toMatchObject({ kind: 'mutation', operationName: 'Do', rootField: 'act' });
    expect(document.query).toBe(
      'mutation Do($a: String!) {\n  act(a: $a) { ...F }\n}\n\nfragment F on Workspace { id }',
    );
  });

  it('refuses anonymous operations and bad fragments', () => {
    expect(() => defineDocument('{ tenant { id } }')).toThrow(TypeError);
    expect(() => defineDocument('query { tenant { id } }')).toThrow(TypeError);
    expect(() => defineFragment('fragment on X { id }')).toThrow(TypeError);
  });
});

describe('PROVIDER_CREDENTIAL_KINDS', () => {
  it('lists exactly the values of the ProviderCredentialKind enum', () => {
    const schema = SCHEMAS[0]![1];
    const kinds = schema.getType('ProviderCredentialKind');
    if (!isEnumType(kinds)) throw new Error('ProviderCredentialKind is not an enum');
    const values = kinds.getValues().map((value) => value.name);
    expect([...PROVIDER_CREDENTIAL_KINDS].sort()).toEqual(values.sort());
  });
});
