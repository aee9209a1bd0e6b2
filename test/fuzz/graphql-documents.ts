/**
 * GraphQL requests for fuzzing the control plane, drawn from the real schema: operations that
 * select real fields (now and then unknown ones, aliases, fragments, directives, selections on
 * leaves), arguments of the right type mostly and of any type now and then, as literals or as
 * variables (declared with their type, a wrong one, or not at all), and several operations with an
 * operation name that may not match. Beside them: token soup, random text, documents past the
 * length limit, nested far past the depth limit, variables nested deep, bodies of the wrong shape.
 *
 * Secret arguments (upsertProviderCredential's apiKey and the like) always get a value marked
 * `fuzzsecret...`, so that a property can tell whether a secret it sent came back in an answer.
 */
import fc from 'fast-check';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';

type Gen = fc.GeneratorValue;

/** Arguments whose values are secrets: never to be seen again in any answer. */
const SECRET_ARGUMENTS: ReadonlySet<string> = new Set([
  'apiKey',
  'awsAccessKeyId',
  'awsSecretAccessKey',
  'awsSessionToken',
  'gcpServiceAccountJson',
]);

/** How a secret value looks, to find it in an answer (the marker and 16 random characters). */
export const SECRET_PATTERN = /fuzzsecret[A-Za-z0-9]{16}/g;

export interface DocumentOptions {
  /** Root fields never generated (they call out to the internet: testProviderCredential's probes). */
  skipFields: ReadonlySet<string>;
  /** Strings worth trying for arguments: ids, slugs and names that exist. */
  knownStrings: readonly string[];
  /** Values never to pass to an argument (`field.argument`), e.g. the one tenant's id to suspendTenant. */
  forbidden: ReadonlyMap<string, readonly string[]>;
}

export interface GraphQLRequestBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** An enum value, printed bare in a document and as a string in variables. */
class EnumLiteral {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

const chance = (g: Gen, percent: number) => g(fc.nat, 99) < percent;
const pick = <T>(g: Gen, items: readonly T[]): T => items[g(fc.nat, items.length - 1)]!;

function printLiteral(value: unknown): string {
  if (value instanceof EnumLiteral) return value.name;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(printLiteral).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([key, item]) => `${key}: ${printLiteral(item)}`)
    .join(', ')}}`;
}

function toJson(value: unknown): unknown {
  if (value instanceof EnumLiteral) return value.name;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJson(item)]));
  return value;
}

function typeString(type: GraphQLInputType | GraphQLOutputType): string {
  return String(type);
}

class DocumentBuilder {
  readonly variables: Record<string, unknown> = {};
  readonly definitions: string[] = [];
  #next = 0;

  readonly g: Gen;
  readonly schema: GraphQLSchema;
  readonly options: DocumentOptions;
  /** Whether this document makes deliberate mistakes; a clean one is valid and gets executed. */
  readonly noisy: boolean;

  constructor(g: Gen, schema: GraphQLSchema, options: DocumentOptions) {
    this.g = g;
    this.schema = schema;
    this.options = options;
    this.noisy = chance(g, 40);
  }

  /** A deliberate mistake, in a noisy document only. */
  mistake(percent: number): boolean {
    return this.noisy && chance(this.g, percent);
  }

  secret(): string {
    return `fuzzsecret${this.g(fc.stringMatching, /^[A-Za-z0-9]{16}$/)}`;
  }

  string(where: string): string {
    const { g } = this;
    const forbidden = this.options.forbidden.get(where) ?? [];
    const known = this.options.knownStrings.filter((value) => !forbidden.includes(value));
    const value = chance(g, 40)
      ? pick(g, known)
      : chance(g, 70)
        ? g(fc.string, { maxLength: 20 })
        : chance(g, 50)
          ? g(fc.string, { unit: 'grapheme', maxLength: 30 })
          : g(fc.string, { minLength: 100, maxLength: 3000 });
    return forbidden.includes(value) ? `${value}-x` : value;
  }

  /** A value for an input type: of that type mostly, anything now and then. */
  value(type: GraphQLInputType, where: string, depth: number, secret: boolean, nullable = true): unknown {
    const { g } = this;
    if (this.mistake(8)) return g(fc.jsonValue, { maxDepth: 2 });
    if (isNonNullType(type))
      return this.mistake(5) ? null : this.value(type.ofType, where, depth, secret, false);
    if (nullable && chance(g, 5)) return null;
    if (isListType(type)) {
      if (chance(g, 15)) return this.value(type.ofType, where, depth + 1, secret);
      const length = depth > 3 ? 0 : g(fc.nat, chance(g, 5) ? 80 : 4);
      return Array.from({ length }, () => this.value(type.ofType, where, depth + 1, secret));
    }
    if (isInputObjectType(type)) {
      const result: Record<string, unknown> = {};
      for (const field of Object.values(type.getFields())) {
        if (!isNonNullType(field.type) && chance(g, 40)) continue;
        result[field.name] = this.value(field.type, `${where}.${field.name}`, depth + 1, secret);
      }
      if (this.mistake(8)) result[`unknown${g(fc.nat, 9)}`] = 1;
      return result;
    }
    if (isEnumType(type)) {
      return !this.mistake(15)
        ? new EnumLiteral(pick(g, type.getValues()).name)
        : new EnumLiteral(g(fc.stringMatching, /^[A-Za-z_][A-Za-z0-9_]{0,10}$/));
    }
    if (isScalarType(type)) {
      switch (type.name) {
        case 'String':
        case 'ID':
          return secret ? this.secret() : this.string(where);
        case 'Int':
          return !this.mistake(30)
            ? g(fc.integer, { min: -10, max: 100_000 })
            : pick(g, [2 ** 31, -(2 ** 31) - 1, 86_400, 86_401, 1.5, 2 ** 53]);
        case 'Float':
          return chance(g, 70)
            ? g(fc.integer, { min: 0, max: 10 ** 9 })
            : g(fc.double, { noNaN: true, noDefaultInfinity: true });
        case 'Boolean':
          return g(fc.boolean);
      }
    }
    return this.string(where);
  }

  /** `name: value` for the arguments of a field, as literals or variables. */
  arguments(field: GraphQLField<unknown, unknown>): string {
    const { g } = this;
    const parts: string[] = [];
    for (const argument of field.args as readonly GraphQLArgument[]) {
      const required = isNonNullType(argument.type);
      if (!required && chance(g, 50)) continue;
      if (required && this.mistake(5)) continue;
      const where = `${field.name}.${argument.name}`;
      const secret = field.name === 'upsertProviderCredential' && SECRET_ARGUMENTS.has(argument.name);
      const value = this.value(argument.type, where, 0, secret);
      if (chance(g, 40)) {
        const variable = `v${this.#next++}`;
        const declared = !this.mistake(20)
          ? typeString(argument.type)
          : pick(g, ['Int', 'String!', '[String!]!', 'Boolean', 'Unknown', 'MintEphemeralTokenInput']);
        if (!this.mistake(8)) this.definitions.push(`$${variable}: ${declared}`);
        if (!this.mistake(10) && (isNonNullType(argument.type) || chance(g, 90)))
          this.variables[variable] = toJson(value);
        parts.push(`${argument.name}: $${variable}`);
      } else {
        parts.push(`${argument.name}: ${printLiteral(value)}`);
      }
    }
    if (this.mistake(8))
      parts.push(
        `bogus${g(fc.nat, 9)}: ${printLiteral(this.value(this.schema.getType('String') as GraphQLInputType, 'bogus', 0, false))}`,
      );
    return parts.length === 0 ? '' : `(${parts.join(', ')})`;
  }

  /** A selection set on an object type, `depth` levels below the operation. */
  selection(type: GraphQLObjectType, depth: number, maxDepth: number): string {
    const { g } = this;
    const fields = Object.values(type.getFields());
    const chosen = new Set<GraphQLField<unknown, unknown>>();
    const count = 1 + g(fc.nat, Math.min(4, fields.length - 1));
    while (chosen.size < count) chosen.add(pick(g, fields));
    const parts = [...chosen].map((field) => this.field(field, depth, maxDepth));
    if (chance(g, 10)) parts.push('__typename');
    if (this.mistake(8)) parts.push(`unknownField${g(fc.nat, 9)}`);
    if (chance(g, 8)) parts.push(`... on ${type.name} { __typename }`);
    if (chance(g, 5)) parts.push(`... @include(if: ${g(fc.boolean)}) { __typename }`);
    return `{ ${parts.join(' ')} }`;
  }

  field(field: GraphQLField<unknown, unknown>, depth: number, maxDepth: number): string {
    const { g } = this;
    // Aliases are unique (two different fields under one alias do not merge) unless noisy.
    const alias = chance(g, 8) ? `a${this.mistake(50) ? g(fc.nat, 3) : this.#next++}: ` : '';
    const directive = chance(g, 5) ? ` @skip(if: ${g(fc.boolean)})` : '';
    const head = `${alias}${field.name}${this.arguments(field)}${directive}`;
    const named: GraphQLNamedType = getNamedType(field.type);
    if (isLeafType(named)) return this.mistake(5) ? `${head} { x }` : head;
    if (!isObjectType(named)) return head;
    if (depth >= maxDepth) {
      // Past the intended depth: the first leaf field, or an empty selection (a syntax error).
      const leaf = Object.values(named.getFields()).find((candidate) =>
        isLeafType(getNamedType(candidate.type)),
      );
      return leaf === undefined || this.mistake(10) ? `${head} { }` : `${head} { ${leaf.name} }`;
    }
    return `${head} ${this.selection(named, depth + 1, maxDepth)}`;
  }

  operation(): string {
    const { g, schema } = this;
    const kind = chance(g, 50) ? 'query' : !this.mistake(10) ? 'mutation' : 'subscription';
    const root =
      kind === 'query' ? schema.getQueryType() : kind === 'mutation' ? schema.getMutationType() : undefined;
    // Mostly within the depth limit (8); now and then far past it through recursive types.
    const maxDepth = !this.mistake(20) ? 1 + g(fc.nat, 4) : 8 + g(fc.nat, 8);
    let body: string;
    if (root === undefined || root === null) {
      body = `{ onChange${g(fc.nat, 9)} { id } }`;
    } else {
      const fields = Object.values(root.getFields()).filter(
        (field) => !this.options.skipFields.has(field.name),
      );
      const chosen = new Set(Array.from({ length: 1 + g(fc.nat, 2) }, () => pick(g, fields)));
      body = `{ ${[...chosen].map((field) => this.field(field, 1, maxDepth)).join(' ')} }`;
    }
    const name = chance(g, 40) ? ` Op${g(fc.nat, 3)}` : '';
    const definitions = this.definitions.splice(0);
    const header = definitions.length > 0 ? `(${definitions.join(', ')})` : '';
    if (kind === 'query' && name === '' && header === '' && chance(g, 50)) return body;
    return `${kind}${name}${header} ${body}`;
  }
}

/** A request drawn from the schema: one or more operations, variables, maybe an operation name. */
export function schemaRequest(g: Gen, schema: GraphQLSchema, options: DocumentOptions): GraphQLRequestBody {
  const builder = new DocumentBuilder(g, schema, options);
  const operations = Array.from({ length: builder.mistake(25) ? 2 : 1 }, () => builder.operation());
  const body: GraphQLRequestBody = { query: operations.join('\n') };
  if (Object.keys(builder.variables).length > 0 || chance(g, 30)) body.variables = builder.variables;
  if (builder.mistake(25))
    body.operationName = chance(g, 50) ? `Op${g(fc.nat, 3)}` : g(fc.jsonValue, { maxDepth: 1 });
  return body;
}

/** GraphQL tokens in random order: what a broken client or a fuzzer sends. */
const tokenSoup: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '{',
        '}',
        '(',
        ')',
        '[',
        ']',
        ':',
        '!',
        '$',
        '@',
        '...',
        '=',
        ',',
        '|',
        '&',
        '#x\n',
        '"""',
        '"',
      ),
      fc.constantFrom(
        'query',
        'mutation',
        'subscription',
        'fragment',
        'on',
        'tenant',
        'mintEphemeralToken',
        'input',
        '__schema',
        '__type',
        'true',
        'null',
      ),
      fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/),
      fc.integer().map(String),
      fc.string({ maxLength: 10 }).map((text) => JSON.stringify(text)),
    ),
    { maxLength: 40 },
  )
  .map((tokens) => tokens.join(' '));

/** Requests that are not drawn from the schema: broken text, sizes and depths past every limit. */
export const unstructuredRequest: fc.Arbitrary<{ body: GraphQLRequestBody | string; what: string }> =
  fc.oneof(
    tokenSoup.map((query) => ({ body: { query }, what: 'token soup' })),
    fc.string({ unit: 'grapheme', maxLength: 80 }).map((query) => ({ body: { query }, what: 'random text' })),
    fc.integer({ min: 20_001, max: 60_000 }).map((length) => ({
      body: { query: `{ tenant { id } }${' '.repeat(length)}` },
      what: 'a document over the length limit',
    })),
    fc.integer({ min: 300 * 1024, max: 400 * 1024 }).map((length) => ({
      body: { query: `{ tenant { id ${'name '.repeat(length / 5)} } }` },
      what: 'a body over the size limit',
    })),
    fc
      .tuple(fc.integer({ min: 9, max: 9000 }), fc.constantFrom('{ tenant ', '{ a ', '{ '))
      .map(([depth, open]) => ({
        body: { query: `${open.repeat(depth)}${'}'.repeat(depth)}` },
        what: 'a document nested deep',
      })),
    fc.integer({ min: 9, max: 3000 }).map((depth) => ({
      body: { query: `query { tenant ${'{ children '.repeat(depth)}{ id }${' }'.repeat(depth)} }` },
      what: 'real fields nested deep',
    })),
    fc.integer({ min: 50, max: 9000 }).map((depth) => ({
      body: {
        query: `mutation { revalidateCacheTags(workspaceId: "default", tags: ${'['.repeat(depth)}"a"${']'.repeat(depth)}) { invalidated } }`,
      },
      what: 'an argument nested deep',
    })),
    fc
      .tuple(fc.integer({ min: 50, max: 20_000 }), fc.constantFrom('array', 'object'))
      .map(([depth, form]) => ({
        body:
          form === 'array'
            ? `{"query":"query($t: [String!]!) { __typename }","variables":{"t":${'['.repeat(depth)}${']'.repeat(depth)}}}`
            : `{"query":"mutation($i: MintEphemeralTokenInput!) { mintEphemeralToken(input: $i) { jti } }","variables":{"i":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`,
        what: 'variables nested deep',
      })),
    fc.integer({ min: 1, max: 2000 }).map((count) => ({
      body: { query: `fragment F on Tenant { id ...F } { tenant { ...F ${'...F '.repeat(count)} } }` },
      what: 'fragments spread in a cycle',
    })),
    fc.integer({ min: 2, max: 40 }).map((levels) => {
      const fragments = Array.from({ length: levels }, (_item, index) =>
        index === levels - 1
          ? `fragment F${index} on Tenant { id }`
          : `fragment F${index} on Tenant { ...F${index + 1} ...F${index + 1} }`,
      );
      return {
        body: { query: `{ tenant { ...F0 } } ${fragments.join(' ')}` },
        what: 'fragments spread exponentially',
      };
    }),
    fc.integer({ min: 201, max: 3000 }).map((count) => ({
      body: {
        query: `{ ${Array.from({ length: count }, (_item, index) => `a${index}: tenant { id }`).join(' ')} }`,
      },
      what: 'too many fields',
    })),
    fc
      .jsonValue({ maxDepth: 3 })
      .map((body) => ({ body: body as GraphQLRequestBody, what: 'any JSON body' })),
    fc
      .record({ query: fc.jsonValue({ maxDepth: 2 }), variables: fc.jsonValue({ maxDepth: 2 }) })
      .map((body) => ({
        body,
        what: 'query and variables of any type',
      })),
    fc.string({ maxLength: 60 }).map((text) => ({ body: text, what: 'a body that is not JSON' })),
  );
