import { describe, expect, it } from 'vitest';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { mapAnthropicErrorToChat, renderChatStreamError } from './errors.ts';

const fixture = translatorFixtures('openai-to-anthropic').text;

describe('mapAnthropicErrorToChat', () => {
  it.each([
    ['overloaded.error.json', 'overloaded_error', 'Overloaded'],
    ['invalid-request.error.json', 'invalid_request_error', 'messages.1.content.0.tool_result: unexpected'],
    ['rate-limit.error.json', 'rate_limit_error', 'This request would exceed the rate limit'],
    ['billing.error.json', 'insufficient_quota', 'Your credit balance is too low'],
  ])('reads %s as %s', (name, type, messageStart) => {
    const detail = mapAnthropicErrorToChat(fixture(name));
    expect(detail.type).toBe(type);
    expect(detail.message.startsWith(messageStart)).toBe(true);
  });

  it('accepts an already parsed body', () => {
    expect(mapAnthropicErrorToChat(JSON.parse(fixture('overloaded.error.json')))).toEqual({
      message: 'Overloaded',
      type: 'overloaded_error',
    });
  });

  it('keeps plain-text bodies (a CDN 413 page) as the message and never throws', () => {
    expect(mapAnthropicErrorToChat('<html>413 Request Entity Too Large</html>')).toEqual({
      message: '<html>413 Request Entity Too Large</html>',
      type: 'api_error',
    });
    expect(mapAnthropicErrorToChat('')).toEqual({ message: 'no message', type: 'api_error' });
    expect(mapAnthropicErrorToChat({ error: { type: 'brand_new_error' } })).toEqual({
      message: 'no message',
      type: 'api_error',
    });
  });
});

describe('renderChatStreamError', () => {
  it('renders the de-facto OpenAI error chunk', () => {
    expect(renderChatStreamError({ message: 'Overloaded', type: 'overloaded_error' })).toEqual({
      data: '{"error":{"code":"service.upstream_error","message":"Overloaded","type":"overloaded_error"}}',
    });
  });
});
