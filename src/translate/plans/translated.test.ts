import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type { PlanRequest, UpstreamTarget } from '../types.ts';
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

  describe('a body of a shape the translation cannot read (found by fuzzing: these were 500s)', () => {
    const chat = (extra: Record<string, unknown>): PlanRequest => ({
      operation: 'chat',
      body: { model: 'm', messages: [{ role: 'user', content: 'Hi' }], ...extra },
      stream: false,
    });
    const messages = (extra: Record<string, unknown>): PlanRequest => ({
      operation: 'messages',
      body: { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }], ...extra },
      stream: false,
    });
    const to = (shape: UpstreamTarget['shape']): UpstreamTarget => ({
      shape,
      provider: shape,
      model: 'm',
      nativePath: undefined,
    });
    const cases: [string, PlanRequest, UpstreamTarget][] = [
      ['chat tools that are not a list, to Anthropic', chat({ tools: '' }), to('anthropic')],
      ['chat tools that are not a list, to Gemini', chat({ tools: {} }), to('gemini')],
      ['chat tools that are not a list, to Bedrock', chat({ tools: 'x' }), to('bedrock')],
      [
        'a null content block, to OpenAI',
        messages({ messages: [{ role: 'user', content: [null] }] }),
        to('openai'),
      ],
      ['a tool that is a number, to OpenAI', messages({ tools: [5] }), to('openai')],
      [
        'a tool_choice that is not an object, to OpenAI',
        messages({ tool_choice: null, tools: [{ name: 'f', input_schema: {} }] }),
        to('openai'),
      ],
    ];
    it.each(cases)('answers 400 for %s', (_name, request, target) => {
      expect(() => planUpstream(request, target)).toThrow(InvalidRequestError);
    });
  });
});

describe('planUpstream type-checks the fields translators map (issue 23, item 12)', () => {
  const chat = (extra: Record<string, unknown>): PlanRequest => ({
    operation: 'chat',
    body: { model: 'm', messages: [{ role: 'user', content: 'Hi' }], ...extra },
    stream: false,
  });
  const to = (shape: UpstreamTarget['shape'], nativePath?: string): UpstreamTarget => ({
    shape,
    provider: shape,
    model: 'm',
    nativePath,
  });

  it.each(['anthropic', 'gemini', 'bedrock'] as const)(
    'refuses temperature "hot" to %s, naming it',
    (shape) => {
      expect(() => planUpstream(chat({ temperature: 'hot' }), to(shape))).toThrow(
        new InvalidRequestError("'temperature' must be a number"),
      );
    },
  );

  it('refuses system 7 on /v1/messages to an OpenAI-shaped upstream', () => {
    const request: PlanRequest = {
      operation: 'messages',
      body: { ...MESSAGES_BODY, system: 7 },
      stream: false,
    };
    expect(() => planUpstream(request, to('openai', '/chat/completions'))).toThrow(
      "'system' must be a string or an array of text blocks",
    );
  });

  it('passes the same fields through untouched when the shapes match', () => {
    const plan = planUpstream(
      chat({ temperature: 'hot', stop: 5, brand_new_field: { x: 1 } }),
      to('openai', '/chat/completions'),
    );
    expect(JSON.parse(plan.payload)).toMatchObject({
      temperature: 'hot',
      stop: 5,
      brand_new_field: { x: 1 },
    });
  });

  it.each(['anthropic', 'bedrock'] as const)('takes a null tool_choice on chat as absent, to %s', (shape) => {
    const plan = planUpstream(chat({ tool_choice: null, temperature: null }), to(shape));
    expect(JSON.parse(plan.payload)).not.toHaveProperty('tool_choice');
  });
});
