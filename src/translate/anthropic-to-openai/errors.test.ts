import { describe, expect, it } from 'vitest';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { mapChatErrorToAnthropic, renderAnthropicStreamError } from './errors.ts';

const fixture = translatorFixtures('anthropic-to-openai').text;

describe('mapChatErrorToAnthropic', () => {
  it.each([
    ['context-length.error.json', 'invalid_request_error', "This model's maximum context length"],
    ['invalid-key.error.json', 'authentication_error', 'Incorrect API key provided'],
    ['rate-limit.error.json', 'rate_limit_error', 'Rate limit reached for gpt-4o'],
    ['quota.error.json', 'billing_error', 'You exceeded your current quota'],
    ['server.error.json', 'api_error', 'The server had an error'],
    ['vllm.error.json', 'not_found_error', 'The model `llama-3.3-70b` does not exist.'],
    ['google-compat.error.json', 'rate_limit_error', 'Resource has been exhausted'],
  ])('reads %s as %s', (name, type, messageStart) => {
    const detail = mapChatErrorToAnthropic(fixture(name));
    expect(detail.type).toBe(type);
    expect(detail.message.startsWith(messageStart)).toBe(true);
  });

  it('keeps plain-text bodies as the message and never throws', () => {
    expect(mapChatErrorToAnthropic('upstream connect error')).toEqual({
      message: 'upstream connect error',
      type: 'api_error',
    });
    expect(mapChatErrorToAnthropic(null)).toEqual({ message: 'no message', type: 'api_error' });
    expect(mapChatErrorToAnthropic({ error: 'Bad gateway' })).toEqual({
      message: 'Bad gateway',
      type: 'api_error',
    });
  });
});

describe('renderAnthropicStreamError', () => {
  it('renders an Anthropic error event', () => {
    expect(renderAnthropicStreamError({ message: 'Overloaded', type: 'overloaded_error' })).toEqual({
      event: 'error',
      data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    });
  });
});
