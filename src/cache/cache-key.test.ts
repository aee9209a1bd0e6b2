import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalRequest, requestHash } from './cache-key.ts';

const body = {
  model: 'openai/gpt-4o-mini',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [
    { type: 'function', function: { name: 'zeta' }, 'x-service-cache': { tags: ['t'] } },
    { type: 'function', function: { name: 'alpha' } },
  ],
  temperature: 0,
};

describe('requestHash', () => {
  it('is the hex SHA-256 of the route, a newline and the canonical body', () => {
    const expected = createHash('sha256')
      .update('/v1/chat/completions')
      .update('\n')
      .update(canonicalRequest(body))
      .digest('hex');
    expect(requestHash('/v1/chat/completions', body)).toBe(expected);
  });

  it('keeps the keys of entries already stored (a changed key would orphan every cache)', () => {
    expect(canonicalRequest(body)).toBe(
      '{"messages":[{"content":"hi","role":"user"}],"model":"openai/gpt-4o-mini","temperature":0,' +
        '"tools":[{"function":{"name":"alpha"},"type":"function"},{"function":{"name":"zeta"},"type":"function"}]}',
    );
    expect(requestHash('/v1/chat/completions', body)).toBe(
      createHash('sha256')
        .update(
          '/v1/chat/completions\n{"messages":[{"content":"hi","role":"user"}],"model":"openai/gpt-4o-mini",' +
            '"temperature":0,"tools":[{"function":{"name":"alpha"},"type":"function"},' +
            '{"function":{"name":"zeta"},"type":"function"}]}',
        )
        .digest('hex'),
    );
  });

  it('tells apart bodies that differ and not bodies that only order their keys differently', () => {
    const reordered = {
      temperature: 0,
      tools: [...body.tools].reverse(),
      messages: body.messages,
      model: body.model,
    };
    expect(requestHash('/v1/chat/completions', reordered)).toBe(requestHash('/v1/chat/completions', body));
    expect(requestHash('/v1/messages', body)).not.toBe(requestHash('/v1/chat/completions', body));
    expect(requestHash('/v1/chat/completions', { ...body, temperature: 1 })).not.toBe(
      requestHash('/v1/chat/completions', body),
    );
  });
});
