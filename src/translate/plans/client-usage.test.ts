import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readClientUsage, topLevelUsageText, usageOfAnswer } from './client-usage.ts';

const openAiAnswer = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'say "usage": {} here' }, finish_reason: 'stop' },
  ],
  usage: {
    prompt_tokens: 12,
    completion_tokens: 8,
    total_tokens: 20,
    prompt_tokens_details: { cached_tokens: 4 },
  },
  system_fingerprint: 'fp',
};

describe('topLevelUsageText', () => {
  it("finds the outermost object's usage value, however the answer is spaced", () => {
    for (const space of [undefined, 2, '\t']) {
      const text = JSON.stringify(openAiAnswer, null, space);
      expect(JSON.parse(topLevelUsageText(text) as string)).toEqual(openAiAnswer.usage);
    }
    expect(topLevelUsageText('{"a":1,"usage" :\n{"input_tokens":3}}\n')).toBe('{"input_tokens":3}');
    expect(topLevelUsageText('{"usage":null}')).toBe('null');
  });

  it('leaves to a whole parse a usage key that is nested, absent, or in text that is not one object', () => {
    expect(topLevelUsageText('{"usage":{"a":1},"choices":[{"meta":{"usage":{"b":2}}}]}')).toBeUndefined();
    expect(topLevelUsageText('{"choices":[]}')).toBeUndefined();
    expect(topLevelUsageText('[{"usage":{"a":1}}]')).toBeUndefined();
    expect(topLevelUsageText('{"usage":{"a":1}} {"b":2}')).toBeUndefined();
    expect(topLevelUsageText('{"text":"the word \\"usage\\": here"}')).toBeUndefined();
    // A key that ends in "usage" after an escaped quote is not the usage key.
    expect(topLevelUsageText('{"a\\"usage":{"prompt_tokens":5}}')).toBeUndefined();
    expect(readClientUsage('{"a\\"usage":{"prompt_tokens":5}}', 'openai')).toBeUndefined();
  });
});

describe('readClientUsage', () => {
  it('reads what a whole parse reads, nested usage keys and escaped look-alikes included', () => {
    const counts = fc.record({
      prompt_tokens: fc.nat(10_000),
      completion_tokens: fc.nat(10_000),
      input_tokens: fc.nat(10_000),
      output_tokens: fc.nat(10_000),
    });
    const usageLike = fc.oneof(counts, fc.constant(null), fc.string());
    const noise = fc.jsonValue({ maxDepth: 3 });
    const nested = fc.record({ usage: usageLike, other: noise }, { requiredKeys: [] });
    const answer = fc
      .tuple(
        fc.dictionary(
          fc.constantFrom('id', 'choices', 'content', 'model', 'x', 'a"usage', 'usage\\', 'usage "'),
          fc.oneof(noise, nested),
        ),
        fc.option(usageLike, { nil: undefined }),
        fc.boolean(),
        fc.constantFrom(undefined, 1, '\t'),
      )
      .map(([fields, usage, usageFirst, space]) => {
        const object =
          usage === undefined ? fields : usageFirst ? { usage, ...fields } : { ...fields, usage };
        return { object, text: JSON.stringify(object, null, space) };
      });
    fc.assert(
      fc.property(
        answer,
        fc.constantFrom('openai', 'anthropic') as fc.Arbitrary<'openai' | 'anthropic'>,
        (a, d) => {
          expect(readClientUsage(a.text, d)).toEqual(usageOfAnswer(a.object, d));
        },
      ),
      { seed: 20261126, numRuns: 3000 },
    );
  });

  it('is undefined for an answer that is not JSON', () => {
    expect(readClientUsage('upstream said no', 'openai')).toBeUndefined();
    expect(readClientUsage('{"usage":{"prompt_tokens":', 'openai')).toBeUndefined();
  });
});
