import { makeExecutableSchema } from '@graphql-tools/schema';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { ResolverContext } from './context.ts';
import { DEFAULT_LIMITS, executeGraphQL } from './execute.ts';
import { labelOperation, type OperationLabel } from './operation-label.ts';

const schema = makeExecutableSchema({
  typeDefs: /* GraphQL */ `
    type Query {
      workspaces: [String!]!
      usage: Int!
    }
    type Mutation {
      revokeKey(id: String!): Boolean!
    }
  `,
  resolvers: {
    Query: { workspaces: () => ['w1'], usage: () => 1 },
    Mutation: { revokeKey: () => true },
  },
});

const label = (query: string, operationName?: string) => labelOperation(schema, parse(query), operationName);

describe('labelOperation', () => {
  it('names the one root field selected, never the alias or the operation name the caller chose', () => {
    expect(label('query CallerChosenName { myAlias: workspaces }')).toEqual({
      type: 'query',
      name: 'workspaces',
    });
    expect(label('mutation { revokeKey(id: "k") }')).toEqual({ type: 'mutation', name: 'revokeKey' });
    expect(label('{ __typename workspaces }')).toEqual({ type: 'query', name: 'workspaces' });
  });

  it('follows fragments at the root', () => {
    expect(label('query { ...F } fragment F on Query { usage }')).toEqual({ type: 'query', name: 'usage' });
    expect(label('query { ... on Query { usage } }')).toEqual({ type: 'query', name: 'usage' });
  });

  it('says multiple, introspection or other rather than anything the caller wrote', () => {
    expect(label('{ workspaces usage }')).toEqual({ type: 'query', name: 'multiple' });
    expect(label('{ __schema { queryType { name } } }')).toEqual({ type: 'query', name: 'introspection' });
    expect(label('{ __typename }')).toEqual({ type: 'query', name: 'other' });
  });

  it('picks the operation by name, and none for a name the document lacks', () => {
    const document = 'query A { usage } mutation B { revokeKey(id: "k") }';
    expect(label(document, 'B')).toEqual({ type: 'mutation', name: 'revokeKey' });
    expect(label(document, 'Missing')).toBeUndefined();
    expect(label(document)).toBeUndefined();
  });
});

describe('executeGraphQL reports the operation', () => {
  const run = async (query: string) => {
    const seen: OperationLabel[] = [];
    await executeGraphQL(schema, { query }, {} as ResolverContext, DEFAULT_LIMITS, {
      onOperation: (operation) => seen.push(operation),
    });
    return seen;
  };

  it('once the document is valid, and not for one that fails to parse or validate', async () => {
    expect(await run('{ usage }')).toEqual([{ type: 'query', name: 'usage' }]);
    expect(await run('{ usage')).toEqual([]);
    expect(await run('{ notAField }')).toEqual([]);
  });
});
