/**
 * What a GraphQL request did, as metric labels: the operation's type and the root field it
 * selected. Only names the schema defines become labels: the field's name (never its alias, nor
 * the operation's name, which the caller chooses), `introspection` for `__schema` / `__type`,
 * `multiple` for a request that selects several root fields, `other` for anything else.
 */
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  type SelectionSetNode,
} from 'graphql';

export interface OperationLabel {
  /** `query`, `mutation`, `subscription`. */
  type: string;
  name: string;
}

const INTROSPECTION_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type']);

/** Root field names of a selection set, through inline fragments and fragment spreads. */
function collectRootFields(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  names: Set<string>,
  visited: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) names.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      collectRootFields(selection.selectionSet, fragments, names, visited);
    else if (!visited.has(selection.name.value)) {
      visited.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment !== undefined) collectRootFields(fragment.selectionSet, fragments, names, visited);
    }
  }
}

/** The label of a validated document's operation; undefined when it names no operation to run. */
export function labelOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: unknown,
): OperationLabel | undefined {
  const operation = getOperationAST(document, typeof operationName === 'string' ? operationName : undefined);
  if (operation === null || operation === undefined) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const names = new Set<string>();
  collectRootFields(operation.selectionSet, fragments, names, new Set());
  names.delete('__typename');
  const fields = schema.getRootType(operation.operation)?.getFields() ?? {};
  let name = 'other';
  if (names.size > 0 && [...names].every((field) => INTROSPECTION_FIELDS.has(field))) name = 'introspection';
  else if (names.size > 1) name = 'multiple';
  else if (names.size === 1) {
    const field = names.values().next().value as string;
    if (Object.hasOwn(fields, field)) name = field;
  }
  return { type: operation.operation, name };
}
