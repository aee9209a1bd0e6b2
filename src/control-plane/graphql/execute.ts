/**
 * Runs one GraphQL request with the limits a public API needs: body size, query length, depth and
 * field count, and optionally no introspection. Errors carry `extensions.code`; anything that is
 * not a GraphQLError is reported as INTERNAL_SERVER_ERROR without its message.
 *
 * Introspection (`__schema`, `__type` and everything under them) is measured against limits of its
 * own: the query every GraphQL tool sends (`getIntrospectionQuery()`) is 15 levels deep and selects
 * about 240 fields, which the limits for ordinary queries would refuse.
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
import { labelOperation, type OperationLabel } from './operation-label.ts';

export interface ExecutionLimits {
  maxQueryLength: number;
  maxDepth: number;
  maxFields: number;
  /** Depth and field count allowed under `__schema` and `__type`, counted apart from the above. */
  maxIntrospectionDepth: number;
  maxIntrospectionFields: number;
  introspection: boolean;
}

export const DEFAULT_LIMITS: ExecutionLimits = {
  maxQueryLength: 20_000,
  maxDepth: 8,
  maxFields: 200,
  maxIntrospectionDepth: 20,
  maxIntrospectionFields: 600,
  introspection: true,
};

/** The meta-fields that open an introspection subtree (`__typename` is a leaf and counts as any field). */
const INTROSPECTION_ROOTS: ReadonlySet<string> = new Set(['__schema', '__type']);

export interface GraphQLRequestBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** What the caller learns of a request as it runs. */
export interface ExecutionHooks {
  /** A resolver failed with something that is not a GraphQLError (answered as internal error). */
  onInternalError?: (error: Error) => void;
  /** The document is valid: what it runs, as metric labels. */
  onOperation?: (label: OperationLabel) => void;
}

function codedError(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/** Field levels below a selection set and fields selected in it, fragments followed. */
interface SelectionSize {
  depth: number;
  fields: number;
}

/** An ordinary selection's size, and the size of the introspection subtrees inside it. */
interface Measured {
  plain: SelectionSize;
  meta: SelectionSize;
}

/**
 * Depth and field count of every operation, each clamped just past its limit; introspection
 * subtrees are measured apart, against their own limits. Each fragment is measured once per
 * context (ordinary or introspection) and remembered: a chain of fragments that each spread the
 * next twice costs one visit per fragment rather than 2^n, and the walk stops as soon as a limit is
 * passed, so a small query cannot make this loop run long. A spread of a fragment that is still
 * being measured (a cycle) adds nothing: this runs before validation, which refuses cycles.
 */
function measure(document: DocumentNode, limits: ExecutionLimits): Measured {
  const caps = {
    plain: { depth: limits.maxDepth + 1, fields: limits.maxFields + 1 },
    meta: { depth: limits.maxIntrospectionDepth + 1, fields: limits.maxIntrospectionFields + 1 },
  };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const measured = new Map<string, Measured>();
  const inProgress = new Set<string>();
  const empty = (): Measured => ({ plain: { depth: 0, fields: 0 }, meta: { depth: 0, fields: 0 } });
  const overLimit = (size: Measured) =>
    size.plain.depth >= caps.plain.depth ||
    size.plain.fields >= caps.plain.fields ||
    size.meta.depth >= caps.meta.depth ||
    size.meta.fields >= caps.meta.fields;
  const addPart = (
    total: SelectionSize,
    part: SelectionSize,
    levelsAbove: number,
    cap: { depth: number; fields: number },
  ) => {
    total.depth = Math.min(cap.depth, Math.max(total.depth, part.depth + levelsAbove));
    total.fields = Math.min(cap.fields, total.fields + part.fields);
  };
  const add = (total: Measured, part: Measured, levelsAbove: number) => {
    addPart(total.plain, part.plain, levelsAbove, caps.plain);
    addPart(total.meta, part.meta, levelsAbove, caps.meta);
  };
  // Inside an introspection subtree every field counts as introspection.
  const asMeta = (part: Measured): Measured => ({
    plain: { depth: 0, fields: 0 },
    meta: {
      depth: Math.max(part.plain.depth, part.meta.depth),
      fields: part.plain.fields + part.meta.fields,
    },
  });
  const measureFragment = (name: string, inMeta: boolean): Measured => {
    const key = `${inMeta ? 'meta' : 'plain'}:${name}`;
    const known = measured.get(key);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (fragment === undefined || inProgress.has(key)) return empty();
    inProgress.add(key);
    const size = measureSelections(fragment.selectionSet, inMeta);
    inProgress.delete(key);
    measured.set(key, size);
    return size;
  };
  const measureSelections = (selectionSet: SelectionSetNode, inMeta: boolean): Measured => {
    const total = empty();
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const opensMeta = inMeta || INTROSPECTION_ROOTS.has(selection.name.value);
        const self: Measured = opensMeta
          ? { plain: { depth: 0, fields: 0 }, meta: { depth: 1, fields: 1 } }
          : { plain: { depth: 1, fields: 1 }, meta: { depth: 0, fields: 0 } };
        add(total, self, 0);
        if (selection.selectionSet) {
          const below = measureSelections(selection.selectionSet, opensMeta);
          add(total, opensMeta ? asMeta(below) : below, 1);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        add(total, measureSelections(selection.selectionSet, inMeta), 0);
      } else {
        add(total, measureFragment(selection.name.value, inMeta), 0);
      }
      if (overLimit(total)) break;
    }
    return total;
  };
  const total = empty();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION)
      add(total, measureSelections(definition.selectionSet, false), 0);
    if (overLimit(total)) break;
  }
  return total;
}

export async function executeGraphQL(
  schema: GraphQLSchema,
  body: GraphQLRequestBody,
  context: ResolverContext,
  limits: ExecutionLimits,
  hooks: ExecutionHooks = {},
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
    // The parser recurses per level of nesting: a document within the token limit can still nest
    // deep enough (lists in an argument) to exhaust the stack, which says nothing to the caller.
    const message =
      error instanceof RangeError ? 'the query is nested too deeply to parse' : (error as Error).message;
    return { errors: [codedError(message, 'GRAPHQL_PARSE_FAILED')] };
  }
  // The limits first: measuring is linear in the document, while some validation rules (fields
  // that can be merged) are quadratic in the fields selected.
  const { plain, meta } = measure(document, limits);
  if (plain.depth > limits.maxDepth)
    return { errors: [codedError(`the query is deeper than ${limits.maxDepth} levels`, 'VALIDATION_ERROR')] };
  if (plain.fields > limits.maxFields) {
    return {
      errors: [codedError(`the query selects more than ${limits.maxFields} fields`, 'VALIDATION_ERROR')],
    };
  }
  if (meta.depth > limits.maxIntrospectionDepth || meta.fields > limits.maxIntrospectionFields) {
    const message = `the introspection query is deeper than ${limits.maxIntrospectionDepth} levels or selects more than ${limits.maxIntrospectionFields} fields`;
    return { errors: [codedError(message, 'VALIDATION_ERROR')] };
  }
  const rules = limits.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
  const validationErrors = validate(schema, document, rules);
  if (validationErrors.length > 0) {
    return {
      errors: validationErrors.map((error) => codedError(error.message, 'GRAPHQL_VALIDATION_FAILED')),
    };
  }
  if (hooks.onOperation !== undefined) {
    const label = labelOperation(schema, document, body.operationName);
    if (label !== undefined) hooks.onOperation(label);
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
        hooks.onInternalError?.(original);
        return new GraphQLError('internal error', {
          path: error.path,
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        });
      }),
    };
  }
  return result;
}
