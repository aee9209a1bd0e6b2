import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import { convertJsonSchemaToGemini } from './schema.ts';

const objectWith = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

/** Converts `{type: object, properties: {p: schema}}` and returns the converted `p`. */
const convertProperty = (schema: unknown) =>
  convertJsonSchemaToGemini(objectWith({ p: schema }))?.properties?.p;

describe('convertJsonSchemaToGemini', () => {
  it('returns nothing for an absent schema and for an empty root object schema', () => {
    expect(convertJsonSchemaToGemini(undefined)).toBeUndefined();
    expect(convertJsonSchemaToGemini({ type: 'object', properties: {} })).toBeUndefined();
    expect(convertJsonSchemaToGemini({ type: 'object', additionalProperties: false })).toBeUndefined();
    expect(convertJsonSchemaToGemini({})).toBeUndefined();
  });

  it('drops keywords Gemini does not know, keeping the allow-listed ones', () => {
    const converted = convertJsonSchemaToGemini({
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'urn:x',
      $comment: 'internal',
      type: 'object',
      title: 'T',
      description: 'D',
      additionalProperties: false,
      patternProperties: { '^x-': { type: 'string' } },
      propertyNames: { pattern: '^[a-z]+$' },
      dependencies: { a: ['b'] },
      minProperties: 1,
      maxProperties: 3,
      properties: {
        s: {
          type: 'string',
          minLength: 1,
          maxLength: 5,
          pattern: '^[a-z]+$',
          examples: ['abc'],
          example: 'abc',
          default: 'a',
          not: { const: 'x' },
        },
        n: { type: 'number', multipleOf: 0.5, minimum: 0, maximum: 10 },
        l: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2, uniqueItems: true },
        // Parsed from text: a literal object with a `then` key would be a thenable.
        c: JSON.parse('{"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"type": "number"}}'),
      },
      propertyOrdering: ['s', 'n'],
    });
    expect(converted).toEqual({
      type: 'object',
      title: 'T',
      description: 'D',
      minProperties: 1,
      maxProperties: 3,
      properties: {
        s: { type: 'string', minLength: 1, maxLength: 5, pattern: '^[a-z]+$', example: 'abc', default: 'a' },
        n: { type: 'number', minimum: 0, maximum: 10 },
        l: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
        c: {},
      },
      propertyOrdering: ['s', 'n'],
    });
  });

  it('turns a type array with null into a single type plus nullable', () => {
    expect(convertProperty({ type: ['string', 'null'] })).toEqual({ type: 'string', nullable: true });
    expect(convertProperty({ type: ['integer'] })).toEqual({ type: 'integer' });
  });

  it('turns a type array of several types into anyOf branches', () => {
    expect(convertProperty({ type: ['string', 'number', 'null'], description: 'id' })).toEqual({
      anyOf: [
        { type: 'string', description: 'id' },
        { type: 'number', description: 'id' },
      ],
      nullable: true,
    });
  });

  it('removes {type: null} from anyOf, collapsing a single remaining member', () => {
    expect(
      convertProperty({ anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }], description: 'n' }),
    ).toEqual({
      type: 'integer',
      minimum: 1,
      description: 'n',
      nullable: true,
    });
    expect(convertProperty({ anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'integer' }],
      nullable: true,
    });
  });

  it('rewrites oneOf as anyOf', () => {
    expect(convertProperty({ oneOf: [{ type: 'string' }, { type: 'boolean' }] })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'boolean' }],
    });
  });

  it('merges allOf members, unioning properties and required', () => {
    expect(
      convertProperty({
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'integer' } }, required: ['b'] },
        ],
        description: 'both',
      }),
    ).toEqual({
      type: 'object',
      description: 'both',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      required: ['a', 'b'],
    });
  });

  it('inlines $ref into $defs and definitions, sibling keywords winning', () => {
    const converted = convertJsonSchemaToGemini({
      type: 'object',
      $defs: { Unit: { type: 'string', enum: ['c', 'f'], description: 'unit' } },
      definitions: { Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      properties: {
        unit: { $ref: '#/$defs/Unit', description: 'temperature unit' },
        at: { $ref: '#/definitions/Point' },
        path: { type: 'array', items: { $ref: '#/definitions/Point' } },
      },
    });
    expect(converted).toEqual({
      type: 'object',
      properties: {
        unit: { type: 'string', enum: ['c', 'f'], description: 'temperature unit' },
        at: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
        path: {
          type: 'array',
          items: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
        },
      },
    });
  });

  it('cuts a recursive $ref to a plain object instead of looping', () => {
    const converted = convertJsonSchemaToGemini({
      $defs: {
        Node: {
          type: 'object',
          properties: {
            value: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
        },
      },
      $ref: '#/$defs/Node',
    });
    expect(converted).toEqual({
      type: 'object',
      properties: { value: { type: 'string' }, children: { type: 'array', items: { type: 'object' } } },
    });
  });

  it('refuses a $ref that resolves to no local definition', () => {
    expect(() => convertProperty({ $ref: 'https://example.com/schema.json' })).toThrow(InvalidRequestError);
    expect(() => convertProperty({ $ref: '#/$defs/Missing' })).toThrow(/does not resolve/);
  });

  it('refuses a schema whose shared references expand without bound', () => {
    const defs: Record<string, unknown> = { L0: { type: 'string' } };
    for (let level = 1; level <= 20; level += 1) {
      defs[`L${level}`] = {
        type: 'object',
        properties: { a: { $ref: `#/$defs/L${level - 1}` }, b: { $ref: `#/$defs/L${level - 1}` } },
      };
    }
    expect(() => convertJsonSchemaToGemini({ $defs: defs, $ref: '#/$defs/L20' })).toThrow(
      /expands to more than/,
    );
  });

  it('turns const into a one-member enum', () => {
    expect(convertProperty({ const: 'dinner' })).toEqual({ type: 'string', enum: ['dinner'] });
  });

  it('keeps enums as strings: null becomes nullable, untyped values are stringified', () => {
    expect(convertProperty({ type: 'string', enum: ['a', 'b', null] })).toEqual({
      type: 'string',
      enum: ['a', 'b'],
      nullable: true,
    });
    expect(convertProperty({ enum: ['a', 1, true] })).toEqual({ type: 'string', enum: ['a', '1', 'true'] });
  });

  it('moves a numeric enum into the description rather than changing the type', () => {
    expect(convertProperty({ type: 'integer', enum: [1, 2, 3], description: 'Stars.' })).toEqual({
      type: 'integer',
      description: 'Stars. Allowed values: 1, 2, 3.',
    });
  });

  it('turns exclusive bounds into inclusive ones (integers ±1), in draft-4 and draft-6 forms', () => {
    expect(convertProperty({ type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 })).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 9,
    });
    expect(
      convertProperty({
        type: 'integer',
        minimum: 0,
        exclusiveMinimum: true,
        maximum: 5,
        exclusiveMaximum: true,
      }),
    ).toEqual({ type: 'integer', minimum: 1, maximum: 4 });
    expect(convertProperty({ type: 'number', exclusiveMinimum: 0.5 })).toEqual({
      type: 'number',
      minimum: 0.5,
    });
  });

  it('keeps only the formats Gemini accepts', () => {
    expect(convertProperty({ type: 'string', format: 'date-time' })).toEqual({
      type: 'string',
      format: 'date-time',
    });
    expect(convertProperty({ type: 'string', format: 'uri' })).toEqual({ type: 'string' });
    expect(convertProperty({ type: 'integer', format: 'int64' })).toEqual({
      type: 'integer',
      format: 'int64',
    });
    expect(convertProperty({ type: 'number', format: 'date-time' })).toEqual({ type: 'number' });
  });

  it('drops required names that are not declared properties', () => {
    expect(
      convertJsonSchemaToGemini(objectWith({ a: { type: 'string' } }, { required: ['a', 'ghost'] })),
    ).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  });

  it('converts tuple items to one items schema', () => {
    expect(convertProperty({ type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] })).toEqual(
      {
        type: 'array',
        items: { anyOf: [{ type: 'number' }, { type: 'number' }] },
      },
    );
    expect(convertProperty({ type: 'array', items: [{ type: 'string' }] })).toEqual({
      type: 'array',
      items: { type: 'string' },
    });
  });

  it('leaves nested objects that have properties intact and does not mutate its input', () => {
    const input = objectWith({
      inner: objectWith({ x: { type: ['string', 'null'] } }, { additionalProperties: false }),
    });
    const before = structuredClone(input);
    expect(convertJsonSchemaToGemini(input)).toEqual({
      type: 'object',
      properties: { inner: { type: 'object', properties: { x: { type: 'string', nullable: true } } } },
    });
    expect(input).toEqual(before);
  });
});
