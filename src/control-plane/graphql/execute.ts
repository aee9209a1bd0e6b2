/**
 * Runs one GraphQL request with the limits a public API needs: body size, query length, depth and
 * field count, and optionally no introspection. Errors carry `extensions.code`; anything that is
 * not a GraphQLError is reported as INTERNAL_SERVER_ERROR without its message.
 */
import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  NoSchemaIntrospectionCustomRule,
  parse,
  type SelectionSetNode,
  specifiedRules,
  validate,
} from 'graphql';
import type { ResolverContext } from './context.ts';

export interface ExecutionLimits {
  maxQueryLength: number;
  maxDepth: number;
  maxFields: number;
  introspection: boolean;
}

export const DEFAULT_LIMITS: ExecutionLimits = {
  maxQueryLength: 20_000,
  maxDepth: 8,
  maxFields: 200,
  introspection: true,
};

export interface GraphQLRequestBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

function codedError(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/** Depth and field count of every operation, fragments followed (cycles are caught by validation). */
function measure(document: DocumentNode): { depth: number; fields: number } {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  let fields = 0;
  const walk = (selectionSet: SelectionSetNode, depth: number, seen: Set<string>): number => {
    let deepest = depth;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        fields += 1;
        if (selection.selectionSet)
          deepest = Math.max(deepest, walk(selection.selectionSet, depth + 1, seen));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, walk(selection.selectionSet, depth, seen));
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !seen.has(fragment.name.value)) {
          deepest = Math.max(
            deepest,
            walk(fragment.selectionSet, depth, new Set([...seen, fragment.name.value])),
          );
        }
      }
    }
    return deepest;
  };
  let depth = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION)
      depth = Math.max(depth, walk(definition.selectionSet, 1, new Set()));
  }
  return { depth, fields };
}

export async function executeGraphQL(
  schema: GraphQLSchema,
  body: GraphQLRequestBody,
  context: ResolverContext,
  limits: ExecutionLimits,
  onInternalError?: (error: Error) => void,
): Promise<ExecutionResult> {
  if (typeof body.query !== 'string' || body.query.trim() === '') {
    return { errors: [codedError('the body must carry a GraphQL query string', 'BAD_REQUEST')] };
  }
  if (body.query.length > limits.maxQueryLength) {
    return {
      errors: [codedError(`the query is longer than ${limits.maxQueryLength} characters`, 'BAD_REQUEST')],
    };
  }
  if (
    body.variables !== undefined &&
    body.variables !== null &&
    (typeof body.variables !== 'object' || Array.isArray(body.variables))
  ) {
    return { errors: [codedError('variables must be an object', 'BAD_REQUEST')] };
  }
  let document: DocumentNode;
  try {
    document = parse(body.query, { maxTokens: limits.maxFields * 20 });
  } catch (error) {
    return { errors: [codedError((error as Error).message, 'GRAPHQL_PARSE_FAILED')] };
  }
  const rules = limits.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
  const validationErrors = validate(schema, document, rules);
  if (validationErrors.length > 0) {
    return {
      errors: validationErrors.map((error) => codedError(error.message, 'GRAPHQL_VALIDATION_FAILED')),
    };
  }
  const { depth, fields } = measure(document);
  if (depth > limits.maxDepth)
    return { errors: [codedError(`the query is deeper than ${limits.maxDepth} levels`, 'BAD_REQUEST')] };
  if (fields > limits.maxFields)
    return { errors: [codedError(`the query selects more than ${limits.maxFields} fields`, 'BAD_REQUEST')] };
  const result = await execute({
    schema,
    document,
    contextValue: context,
    variableValues: (body.variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
  });
  if (result.errors) {
    return {
      ...result,
      errors: result.errors.map((error) => {
        if (error.extensions?.code !== undefined) return error;
        const original = error.originalError;
        // No path: a request-level error, i.e. the request itself was wrong (variables that do
        // not coerce); resolver failures always carry the path of their field.
        if (error.path === undefined || original === undefined || original === null) {
          return new GraphQLError(error.message, {
            path: error.path,
            extensions: { code: 'BAD_USER_INPUT' },
          });
        }
        if (original instanceof GraphQLError && original.extensions?.code !== undefined) {
          return new GraphQLError(original.message, { path: error.path, extensions: original.extensions });
        }
        onInternalError?.(original);
        return new GraphQLError('internal error', {
          path: error.path,
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        });
      }),
    };
  }
  return result;
}
