import { describe, expect, it } from 'vitest';
import { planUpstream } from './registry.ts';

const MESSAGES_BODY = {
  model: 'openai/o4-mini',
  max_tokens: 256,
  messages: [{ role: 'user', content: 'Hello' }],
};

/** The upstream body a /v1/messages request to an OpenAI-shaped provider is planned with. */
function messagesToOpenAi(provider: string, model: string): Record<string, unknown> {
  const plan = planUpstream(
    { operation: 'messages', body: MESSAGES_BODY, stream: false },
    { shape: 'openai', provider, model, nativePath: '/chat/completions' },
  );
  return JSON.parse(plan.payload) as Record<string, unknown>;
}

describe('planUpstream', () => {
  describe('messages->openai', () => {
    it("sends the token cap as max_completion_tokens to OpenAI's own API (o-series refuse max_tokens)", () => {
      const body = messagesToOpenAi('openai', 'o4-mini');
      expect(body).toMatchObject({ model: 'o4-mini', max_completion_tokens: 256 });
      expect(body).not.toHaveProperty('max_tokens');
    });

    it('keeps max_tokens for OpenAI-compatible providers, which may not know the newer field', () => {
      for (const provider of ['groq', 'openai-compatible', 'bedrock-mantle']) {
        const body = messagesToOpenAi(provider, 'llama-3.1-8b-instant');
        expect(body).toMatchObject({ max_tokens: 256 });
        expect(body).not.toHaveProperty('max_completion_tokens');
      }
    });
  });
});
