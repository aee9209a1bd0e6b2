/**
 * JSON Schema (what OpenAI clients send as tool `parameters` and `json_schema.schema`) to Gemini's
 * OpenAPI-3.0 subset. Gemini refuses the whole request on one unknown key, so this is an allow-list:
 * what is not understood is dropped, what can be expressed otherwise is rewritten.
 *
 * Rules follow providers.md §3 "Schema dialect" (envoy's allow-list, vercel/ai
 * convert-json-schema-to-openapi-schema):
 * - dropped: `$schema`, `$id`, `additionalProperties`, `examples`, `$comment`, `multipleOf`,
 *   `uniqueItems`, `not`, `if/then/else`, `patternProperties`, `propertyNames`, `dependencies`, …
 * - `$ref` into `$defs`/`definitions` inlined (a cycle is cut to a plain object);
 * - `const: v` → `enum: [v]`; enums are strings;
 * - `exclusiveMinimum/Maximum` → inclusive bounds (integers ±1);
 * - `oneOf` → `anyOf`; `allOf` merged;
 * - `type: ["X", "null"]` → `type: "X", nullable: true`; `anyOf` with `{type: "null"}` → `nullable`;
 * - string `format` only `enum`/`date-time`, numeric `int32/int64/float/double`;
 * - an empty root object schema → no schema at all (the caller omits `parameters`).
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type { GeminiSchema } from '../../shapes/gemini.ts';

type JsonObject = Record<string, unknown>;

/** Keys copied as they are (after the rewrites below), from Gemini's Schema object. */
const PLAIN_KEYS = [
  'title',
  'description',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'default',
  'example',
  'propertyOrdering',
] as const;

const STRING_FORMATS = new Set(['enum', 'date-time']);
const NUMBER_FORMATS = new Set(['int32', 'int64', 'float', 'double']);

/** Guards against schemas that expand without bound through shared (non-cyclic) references. */
const MAX_NODES = 10_000;

interface ConversionContext {
  root: JsonObject;
  /** `$ref`s being expanded on the current path; a repeat is a cycle. */
  expanding: string[];
  nodes: number;
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Converts a JSON Schema to Gemini's dialect. Returns undefined for an absent schema and for an
 * empty object schema at the root (Gemini wants no `parameters` rather than an empty object).
 * Throws InvalidRequestError for a `$ref` that points nowhere.
 */
export function convertJsonSchemaToGemini(schema: unknown): GeminiSchema | undefined {
  if (schema === undefined || schema === null) return undefined;
  if (!isObject(schema)) {
    if (typeof schema === 'boolean') return undefined;
    throw new InvalidRequestError('a JSON schema must be an object');
  }
  const context: ConversionContext = { root: schema, expanding: [], nodes: 0 };
  const converted = convertNode(schema, context);
  if (isEmptyObjectSchema(converted)) return undefined;
  return converted;
}

function isEmptyObjectSchema(schema: GeminiSchema): boolean {
  const type = typeof schema.type === 'string' ? schema.type.toLowerCase() : undefined;
  if (type !== 'object' && type !== undefined) return false;
  if (schema.anyOf !== undefined || schema.enum !== undefined) return false;
  return schema.properties === undefined || Object.keys(schema.properties).length === 0;
}

function convertNode(input: unknown, context: ConversionContext): GeminiSchema {
  context.nodes += 1;
  if (context.nodes > MAX_NODES) {
    throw new InvalidRequestError(`JSON schema expands to more than ${MAX_NODES} nodes`);
  }
  // `true` / `{}` accept anything; Gemini has no "any", an unconstrained schema is the nearest.
  if (!isObject(input)) return {};

  const node = expandReferences(input, context);
  if (node === undefined) return { type: 'object' };
  try {
    return convertExpanded(node, context);
  } finally {
    if (typeof input.$ref === 'string') context.expanding.pop();
  }
}

/**
 * Inlines `$ref` (sibling keywords win over the target) and merges `allOf` members. Returns
 * undefined when the reference is a cycle; otherwise a reference is pushed onto `expanding`, and the
 * caller pops it once the subtree is converted.
 */
function expandReferences(input: JsonObject, context: ConversionContext): JsonObject | undefined {
  let node = input;
  if (typeof input.$ref === 'string') {
    const ref = input.$ref;
    if (context.expanding.includes(ref)) return undefined;
    const target = resolveReference(ref, context.root);
    context.expanding.push(ref);
    const { $ref: _ref, ...siblings } = input;
    const siblingAllOf = Array.isArray(siblings.allOf) ? (siblings.allOf as unknown[]) : [];
    node = { ...siblings, allOf: [target, ...siblingAllOf] };
  }
  if (Array.isArray(node.allOf)) {
    const { allOf, ...rest } = node;
    node = mergeSchemas([...(allOf as unknown[]).map((member) => inlineForMerge(member, context)), rest]);
  }
  return node;
}

/** An allOf member with its own `$ref`/`allOf` flattened, so that merging sees plain keywords. */
function inlineForMerge(member: unknown, context: ConversionContext): JsonObject {
  if (!isObject(member)) return {};
  if (typeof member.$ref !== 'string' && !Array.isArray(member.allOf)) return member;
  const expanded = expandReferences(member, context);
  if (expanded === undefined) return { type: 'object' };
  if (typeof member.$ref === 'string') context.expanding.pop();
  return expanded;
}

function resolveReference(ref: string, root: JsonObject): JsonObject {
  if (ref === '#') return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const name = match?.[2]?.replaceAll('~1', '/').replaceAll('~0', '~');
  const defs = match === null ? undefined : root[match[1] as string];
  const target = name !== undefined && isObject(defs) ? defs[name] : undefined;
  if (!isObject(target)) {
    throw new InvalidRequestError(`JSON schema reference '${ref}' does not resolve to a local definition`);
  }
  return target;
}

/** Merges schemas left to right: properties and required are unioned, other keys overwritten. */
function mergeSchemas(schemas: JsonObject[]): JsonObject {
  const merged: JsonObject = {};
  for (const schema of schemas) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && isObject(value)) {
        merged.properties = { ...(isObject(merged.properties) ? merged.properties : {}), ...value };
      } else if (key === 'required' && Array.isArray(value)) {
        const required = Array.isArray(merged.required) ? (merged.required as unknown[]) : [];
        merged.required = [...new Set([...required, ...value])];
      } else {
        merged[key] = value;
      }
    }
  }
  return merged;
}

function convertExpanded(node: JsonObject, context: ConversionContext): GeminiSchema {
  // A type array with several non-null types has no single-type spelling: one branch per type.
  const types = Array.isArray(node.type) ? (node.type as unknown[]).filter((t) => typeof t === 'string') : [];
  const nonNullTypes = types.filter((t) => t !== 'null') as string[];
  if (nonNullTypes.length > 1) {
    const branches = nonNullTypes.map((type) => convertExpanded({ ...node, type }, context));
    return withNullable({ anyOf: branches }, types.includes('null'));
  }

  const result: GeminiSchema = {};
  let nullable = node.nullable === true;

  if (typeof node.type === 'string') {
    result.type = node.type;
  } else if (types.length > 0) {
    if (types.includes('null')) nullable = true;
    result.type = nonNullTypes[0] ?? 'null';
  }

  for (const key of PLAIN_KEYS) {
    if (node[key] !== undefined) (result as Record<string, unknown>)[key] = node[key];
  }

  convertFormat(node, result);
  convertBounds(node, result);
  nullable = convertEnum(node, result) || nullable;

  if (isObject(node.properties)) {
    const properties: Record<string, GeminiSchema> = {};
    for (const [name, property] of Object.entries(node.properties)) {
      properties[name] = convertNode(property, context);
    }
    result.properties = properties;
    if (Array.isArray(node.required)) {
      // Gemini refuses a required name that is not a declared property.
      const required = node.required.filter((name) => typeof name === 'string' && name in properties);
      if (required.length > 0) result.required = required as string[];
    }
  }

  const items = Array.isArray(node.prefixItems) ? node.prefixItems : node.items;
  if (Array.isArray(items)) {
    // Tuple form: Gemini has one `items` schema; a single member is that schema, more become anyOf.
    const members = items.map((item) => convertNode(item, context));
    if (members.length === 1) result.items = members[0] as GeminiSchema;
    else if (members.length > 1) result.items = { anyOf: members };
  } else if (items !== undefined && items !== false) {
    result.items = convertNode(items, context);
  }

  const alternatives = Array.isArray(node.anyOf)
    ? node.anyOf
    : Array.isArray(node.oneOf)
      ? node.oneOf
      : undefined;
  if (alternatives !== undefined) {
    const nonNull = alternatives.filter((member) => !(isObject(member) && member.type === 'null'));
    if (nonNull.length < alternatives.length) nullable = true;
    if (nonNull.length === 1) {
      // anyOf: [X, null] is "X or null": X itself, nullable, with this node's own keywords on top.
      const single = convertNode(nonNull[0], context);
      return withNullable({ ...single, ...result }, nullable);
    }
    if (nonNull.length > 1) result.anyOf = nonNull.map((member) => convertNode(member, context));
    else if (result.type === undefined) result.type = 'null';
  }

  return withNullable(result, nullable);
}

function withNullable(schema: GeminiSchema, nullable: boolean): GeminiSchema {
  return nullable ? { ...schema, nullable: true } : schema;
}

function convertFormat(node: JsonObject, result: GeminiSchema): void {
  if (typeof node.format !== 'string') return;
  const type = typeof result.type === 'string' ? result.type.toLowerCase() : undefined;
  const allowed = type === 'number' || type === 'integer' ? NUMBER_FORMATS : STRING_FORMATS;
  if (allowed.has(node.format)) result.format = node.format;
}

/** `exclusiveMinimum`/`exclusiveMaximum`, in both the draft-4 (boolean) and draft-6+ (number) forms. */
function convertBounds(node: JsonObject, result: GeminiSchema): void {
  const isInteger = typeof result.type === 'string' && result.type.toLowerCase() === 'integer';
  const step = isInteger ? 1 : 0;
  if (typeof node.minimum === 'number') {
    result.minimum = node.exclusiveMinimum === true ? node.minimum + step : node.minimum;
  }
  if (typeof node.maximum === 'number') {
    result.maximum = node.exclusiveMaximum === true ? node.maximum - step : node.maximum;
  }
  if (typeof node.exclusiveMinimum === 'number') {
    const bound = node.exclusiveMinimum + step;
    result.minimum = result.minimum === undefined ? bound : Math.max(result.minimum, bound);
  }
  if (typeof node.exclusiveMaximum === 'number') {
    const bound = node.exclusiveMaximum - step;
    result.maximum = result.maximum === undefined ? bound : Math.min(result.maximum, bound);
  }
}

/**
 * `const` and `enum`. Gemini enums are strings: a `null` member becomes `nullable`; other non-string
 * members are written as strings when the schema is (or may be) a string, and otherwise the
 * enum is moved into the description so that a numeric type is not silently changed.
 * Returns whether the enum admitted null.
 */
function convertEnum(node: JsonObject, result: GeminiSchema): boolean {
  const values = node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (values === undefined) return false;
  const nonNull = values.filter((value) => value !== null);
  const admitsNull = nonNull.length < values.length;
  if (nonNull.length === 0) return admitsNull;
  if (nonNull.every((value) => typeof value === 'string')) {
    // `const: "x"` often comes without a type; Gemini wants enums on string schemas.
    result.type ??= 'string';
    result.enum = nonNull;
    return admitsNull;
  }
  const type = typeof result.type === 'string' ? result.type.toLowerCase() : undefined;
  if (type === undefined || type === 'string') {
    result.type = result.type ?? 'string';
    result.enum = nonNull.map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
    return admitsNull;
  }
  const allowed = `Allowed values: ${nonNull.map((value) => JSON.stringify(value)).join(', ')}.`;
  result.description = result.description === undefined ? allowed : `${result.description} ${allowed}`;
  return admitsNull;
}
