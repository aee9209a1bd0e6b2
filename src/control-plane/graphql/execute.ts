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

/** Field levels below a selection set and fields selected in it, fragments followed. */
interface SelectionSize {
  depth: number;
  fields: number;
}

/**
 * Depth and field count of every operation, each clamped just past its limit. Each fragment is
 * measured once and remembered: a chain of fragments that each spread the next twice costs one
 * visit per fragment rather than 2^n, and the walk stops as soon as a limit is passed, so a small
 * query cannot make this loop run long. A spread of a fragment that is still being measured (a
 * cycle) adds nothing: this runs before validation, which refuses cycles.
 */
function measure(document: DocumentNode, limits: ExecutionLimits): SelectionSize {
  const depthCap = limits.maxDepth + 1;
  const fieldCap = limits.maxFields + 1;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const measured = new Map<string, SelectionSize>();
  const inProgress = new Set<string>();
  const overLimit = (size: SelectionSize) => size.depth >= depthCap || size.fields >= fieldCap;
  const add = (total: SelectionSize, part: SelectionSize, levelsAbove: number) => {
    total.depth = Math.min(depthCap, Math.max(total.depth, part.depth + levelsAbove));
    total.fields = Math.min(fieldCap, total.fields + part.fields);
  };
  const measureFragment = (name: string): SelectionSize => {
    const known = measured.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (fragment === undefined || inProgress.has(name)) return { depth: 0, fields: 0 };
    inProgress.add(name);
    const size = measureSelections(fragment.selectionSet);
    inProgress.delete(name);
    measured.set(name, size);
    return size;
  };
  const measureSelections = (selectionSet: SelectionSetNode): SelectionSize => {
    const total = { depth: 0, fields: 0 };
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        add(total, { depth: 1, fields: 1 }, 0);
        if (selection.selectionSet) add(total, measureSelections(selection.selectionSet), 1);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        add(total, measureSelections(selection.selectionSet), 0);
      } else {
        add(total, measureFragment(selection.name.value), 0);
      }
      if (overLimit(total)) break;
    }
    return total;
  };
  const total = { depth: 0, fields: 0 };
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION)
      add(total, measureSelections(definition.selectionSet), 0);
    if (overLimit(total)) break;
  }
  return total;
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
  // The limits first: measuring is linear in the document, while some validation rules (fields
  // that can be merged) are quadratic in the fields selected.
  const { depth, fields } = measure(document, limits);
  if (depth > limits.maxDepth)
    return { errors: [codedError(`the query is deeper than ${limits.maxDepth} levels`, 'VALIDATION_ERROR')] };
  if (fields > limits.maxFields) {
    return {
      errors: [codedError(`the query selects more than ${limits.maxFields} fields`, 'VALIDATION_ERROR')],
    };
  }
  const rules = limits.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
  const validationErrors = validate(schema, document, rules);
  if (validationErrors.length > 0) {
    return {
      errors: validationErrors.map((error) => codedError(error.message, 'GRAPHQL_VALIDATION_FAILED')),
    };
  }
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
