import { describe, expect, it } from 'vitest';
import { planTranslation } from './translation.ts';

const MESSAGES_BODY = {
  model: 'openai/o4-mini',
  max_tokens: 256,
  messages: [{ role: 'user', content: 'Hello' }],
};

describe('planTranslation', () => {
  describe('messages->openai', () => {
    it("sends the token cap as max_completion_tokens to OpenAI's own API (o-series refuse max_tokens)", () => {
      const plan = planTranslation('messages', 'openai', {
        body: MESSAGES_BODY,
        upstreamModel: 'o4-mini',
        stream: false,
        provider: 'openai',
      });
      expect(plan?.body).toMatchObject({ model: 'o4-mini', max_completion_tokens: 256 });
      expect(plan?.body).not.toHaveProperty('max_tokens');
    });

    it('keeps max_tokens for OpenAI-compatible providers, which may not know the newer field', () => {
      for (const provider of ['groq', 'openai-compatible', 'bedrock-mantle', undefined]) {
        const plan = planTranslation('messages', 'openai', {
          body: MESSAGES_BODY,
          upstreamModel: 'llama-3.1-8b-instant',
          stream: false,
          ...(provider === undefined ? {} : { provider }),
        });
        expect(plan?.body).toMatchObject({ max_tokens: 256 });
        expect(plan?.body).not.toHaveProperty('max_completion_tokens');
      }
    });
  });
});
