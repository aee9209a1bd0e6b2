import { describe, expect, it } from 'vitest';
import { measureJsonDepth } from './json-body.ts';

describe('measureJsonDepth', () => {
  it('counts nested objects and arrays', () => {
    expect(measureJsonDepth('1', 10)).toBe(0);
    expect(measureJsonDepth('{"a":[{"b":[]}]}', 10)).toBe(4);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(measureJsonDepth(JSON.stringify({ a: '[[{{"\\"[[' }), 10)).toBe(1);
    expect(measureJsonDepth(JSON.stringify(['\\', '[']), 10)).toBe(1);
  });

  it('stops counting once past the limit', () => {
    expect(measureJsonDepth('['.repeat(100_000), 128)).toBe(129);
  });
});
