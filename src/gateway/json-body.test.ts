import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { measureJsonDepth, nestsDeeperThan } from './json-body.ts';

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

describe('nestsDeeperThan', () => {
  it('says what the exact scan says, brackets inside strings and texts near the limit included', () => {
    const nested = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: fc.constantFrom('a', '{', '[', '"', '\\', '}', ']') }),
        fc.integer(),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(nested, fc.nat(8), fc.nat(12), (value, wraps, limit) => {
        const text = `${'['.repeat(wraps)}${JSON.stringify(value)}${']'.repeat(wraps)}`;
        expect(nestsDeeperThan(text, limit)).toBe(measureJsonDepth(text, limit) > limit);
      }),
      { seed: 20261126, numRuns: 3000 },
    );
  });

  it('refuses a deep body and accepts a long shallow one full of brackets in its strings', () => {
    expect(nestsDeeperThan(`${'['.repeat(200)}${']'.repeat(200)}`, 128)).toBe(true);
    const prose = JSON.stringify({ messages: [{ role: 'user', content: 'code: {[('.repeat(100) }] });
    expect(nestsDeeperThan(prose, 128)).toBe(false);
  });
});
