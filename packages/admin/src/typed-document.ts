/**
 * A GraphQL operation as the SDK sends it, carrying (as types only) the result and variables that
 * graphql-codegen generated for it. The SDK needs no GraphQL library at run time: a document is its
 * text, its operation name and the one root field it selects.
 */

/**
 * One named operation (a query or a mutation selecting one root field), with the fragments it
 * spreads appended to its text.
 *
 * @typeParam Result - the `data` of a successful answer (generated: `<Name>Query` / `<Name>Mutation`).
 * @typeParam Variables - the variables it takes (generated: `<Name>QueryVariables` / `...MutationVariables`).
 */
export interface TypedDocument<Result, Variables> {
  /** `query` or `mutation`. */
  readonly kind: 'query' | 'mutation';
  /** The operation's name, sent as `operationName` and named in errors. */
  readonly operationName: string;
  /** The root field the operation selects; the SDK's methods return its value. */
  readonly rootField: string;
  /** The document text sent as `query`: the operation, then the fragments it spreads. */
  readonly query: string;
  /** Never set at run time: holds the result and variables types for the compiler. */
  readonly __types?: { result: Result; variables: Variables };
}

/** A named fragment, appended to the documents that spread it. */
export interface Fragment {
  readonly name: string;
  readonly source: string;
}

const OPERATION = /^\s*(query|mutation)\s+([_A-Za-z][_0-9A-Za-z]*)/;
const FRAGMENT = /^\s*fragment\s+([_A-Za-z][_0-9A-Za-z]*)\s+on\s/;
const ROOT_FIELD = /^\s*([_A-Za-z][_0-9A-Za-z]*)/;

/** Declares a fragment from its text (`fragment Name on Type { ... }`). */
export function defineFragment(source: string): Fragment {
  const match = FRAGMENT.exec(source);
  if (match === null) throw new TypeError('a fragment must start with `fragment <Name> on <Type>`');
  return { name: match[1] as string, source: source.trim() };
}

/**
 * Declares an operation from its text and the fragments it spreads. The text must be one named
 * query or mutation whose selection starts with its only root field (the rule every document of
 * this SDK follows; a unit test checks each against the schema).
 */
export function defineDocument<Result, Variables>(
  source: string,
  ...fragments: readonly Fragment[]
): TypedDocument<Result, Variables> {
  const operation = OPERATION.exec(source);
  if (operation === null)
    throw new TypeError('a document must start with `query <Name>` or `mutation <Name>`');
  const selection = source.slice(source.indexOf('{') + 1);
  const rootField = ROOT_FIELD.exec(selection);
  if (rootField === null) throw new TypeError(`document ${operation[2]} selects no root field`);
  return {
    kind: operation[1] as 'query' | 'mutation',
    operationName: operation[2] as string,
    rootField: rootField[1] as string,
    query: [source.trim(), ...fragments.map((fragment) => fragment.source)].join('\n\n'),
  };
}

/** The result type of a typed document. */
export type ResultOf<D> = D extends TypedDocument<infer Result, unknown> ? Result : never;
/** The variables type of a typed document. */
export type VariablesOf<D> = D extends TypedDocument<unknown, infer Variables> ? Variables : never;
