import { describe, expect, it } from 'vitest';
import { parseToolArguments, sanitizeToolId, stringifyToolInput } from './tool-calls.ts';

describe('parseToolArguments', () => {
  it('parses a JSON object string', () => {
    expect(parseToolArguments('{"city":"Paris","days":[1,2]}')).toEqual({ city: 'Paris', days: [1, 2] });
  });

  it.each([
    ['an empty string', ''],
    ['whitespace', '  '],
    ['truncated JSON', '{"city": "Tokyo"'],
    ['an array', '[1,2]'],
    ['a scalar', '42'],
    ['null', 'null'],
    ['a missing value', undefined],
    ['a non-string', { city: 'Paris' }],
  ])('turns %s into {}', (_label, text) => {
    expect(parseToolArguments(text)).toEqual({});
  });
});

describe('stringifyToolInput', () => {
  it('writes the input as JSON, and a missing input as {}', () => {
    expect(stringifyToolInput({ city: 'Paris' })).toBe('{"city":"Paris"}');
    expect(stringifyToolInput(undefined)).toBe('{}');
    expect(stringifyToolInput(null)).toBe('{}');
  });
});

describe('sanitizeToolId', () => {
  it('replaces characters outside [a-zA-Z0-9_-] with _', () => {
    expect(sanitizeToolId('functions.get_weather:1', 'toolu_')).toBe('functions_get_weather_1');
    expect(sanitizeToolId('call_9pXq-2', 'toolu_')).toBe('call_9pXq-2');
  });

  it('uses the fallback for an empty id and caps the length when asked', () => {
    expect(sanitizeToolId('', 'tooluse_')).toBe('tooluse_');
    expect(sanitizeToolId('a'.repeat(70), 'tooluse_', 64)).toBe('a'.repeat(64));
  });
});
