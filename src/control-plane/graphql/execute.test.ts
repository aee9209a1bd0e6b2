import { makeExecutableSchema } from '@graphql-tools/schema';
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { ResolverContext } from './context.ts';
import { DEFAULT_LIMITS, executeGraphQL } from './execute.ts';

interface Node {
  id: string;
  child: Node;
}

const node = (depth: number): Node => ({
  id: `n${depth}`,
  get child() {
    return node(depth + 1);
  },
});

const schema = makeExecutableSchema({
  typeDefs: /* GraphQL */ `
    "A node with a child, so that queries can be any depth."
    type Node {
      id: String!
      child: Node!
    }
    type Query {
      root: Node!
    }
  `,
  resolvers: { Query: { root: () => node(0) } },
});

const context = {} as ResolverContext;

function nested(levels: number): string {
  let selection = 'id';
  for (let level = 1; level < levels; level += 1) selection = `child { ${selection} }`;
  return `{ root { ${selection} } }`;
}

describe('executeGraphQL limits', () => {
  it('answers the full getIntrospectionQuery() that GraphQL tools send, and buildClientSchema accepts it', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      inputValueDeprecation: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
    });
    const result = await executeGraphQL(schema, { query }, context, DEFAULT_LIMITS);
    expect(result.errors).toBeUndefined();
    const client = buildClientSchema(result.data as unknown as IntrospectionQuery);
    expect(client.getQueryType()?.getFields().root).toBeDefined();
  });

  it('still refuses an ordinary query deeper than the limit', async () => {
    const ok = await executeGraphQL(schema, { query: nested(7) }, context, DEFAULT_LIMITS);
    expect(ok.errors).toBeUndefined();
    const deep = await executeGraphQL(schema, { query: nested(9) }, context, DEFAULT_LIMITS);
    expect(deep.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(deep.errors?.[0]?.message).toContain('deeper than 8 levels');
  });

  it('does not let an introspection subtree carry an ordinary query past its limits', async () => {
    const query = `{ __schema { queryType { name } } ${nested(9).slice(1, -1)} }`;
    const result = await executeGraphQL(schema, { query }, context, DEFAULT_LIMITS);
    expect(result.errors?.[0]?.message).toContain('deeper than 8 levels');
  });

  it('bounds introspection with limits of its own', async () => {
    let selection = 'name';
    for (let level = 0; level < 25; level += 1) selection = `ofType { ${selection} }`;
    const query = `{ __schema { types { ${selection} } } }`;
    const result = await executeGraphQL(schema, { query }, context, DEFAULT_LIMITS);
    expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(result.errors?.[0]?.message).toContain('introspection query is deeper than 20 levels');
  });

  it('refuses a fragment bomb inside an introspection subtree at once', async () => {
    const fragments = Array.from(
      { length: 30 },
      (_, index) => `fragment F${index} on __Type { ...F${index + 1} ...F${index + 1} }`,
    );
    const query = `{ __schema { types { ...F0 } } } ${fragments.join(' ')} fragment F30 on __Type { name }`;
    const result = await executeGraphQL(schema, { query }, context, DEFAULT_LIMITS);
    expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(result.errors?.[0]?.message).toContain('more than 600 fields');
  });

  it('says a document nested deep enough to exhaust the parser is nested too deeply (not "Maximum call stack size exceeded")', async () => {
    // Within the token limit a list nested ~3,000 levels in an argument overflowed the stack in the
    // control plane (found by fuzzing); limits raised here so that only the nesting matters.
    const depth = 200_000;
    const query = `{ root(x: ${'['.repeat(depth)}1${']'.repeat(depth)}) { id } }`;
    const limits = { ...DEFAULT_LIMITS, maxQueryLength: 10 ** 7, maxFields: 10 ** 6 };
    const result = await executeGraphQL(schema, { query }, context, limits);
    expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(result.errors?.[0]?.message).toBe('the query is nested too deeply to parse');
  });
});
