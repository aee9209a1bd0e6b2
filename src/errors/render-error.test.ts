import { describe, expect, it } from 'vitest';
import {
  CreditCapExceededError,
  type GatewayError,
  InsufficientBalanceError,
  InvalidRequestError,
  ProviderUnavailableError,
  RateLimitedError,
  UpstreamError,
} from './gateway-error.ts';
import { renderError, renderStreamError } from './render-error.ts';

const bodyOf = (rendered: { body: string }) => JSON.parse(rendered.body) as Record<string, unknown>;

describe('renderError', () => {
  it("puts only Anthropic's own error types in the /v1/messages envelope, keeping the gateway's code", () => {
    const cases: Array<[GatewayError, string]> = [
      [new InsufficientBalanceError(), 'billing_error'],
      [new CreditCapExceededError('token budget spent'), 'billing_error'],
      [
        new UpstreamError(502, 401, 'the upstream refused the key', 'upstream_auth_error', false),
        'api_error',
      ],
      [
        new UpstreamError(400, 400, 'prompt is too long', 'context_length_exceeded', false),
        'invalid_request_error',
      ],
      [new UpstreamError(504, 504, 'slow', 'timeout_error', true), 'timeout_error'],
      [new UpstreamError(503, 529, 'busy', 'overloaded_error', true), 'overloaded_error'],
      [new UpstreamError(429, 429, 'quota', 'insufficient_quota', true), 'rate_limit_error'],
      [new RateLimitedError('slow down', 3), 'rate_limit_error'],
      [new InvalidRequestError('bad'), 'invalid_request_error'],
      [new ProviderUnavailableError('vertex'), 'api_error'],
    ];
    for (const [error, type] of cases) {
      const rendered = renderError(error, 'anthropic');
      expect(rendered.statusCode).toBe(error.statusCode);
      expect(bodyOf(rendered)).toEqual({
        type: 'error',
        error: { code: error.code, message: error.message, type },
      });
    }
  });

  it('leaves the OpenAI envelope with the gateway types (insufficient_quota, upstream_auth_error)', () => {
    expect(bodyOf(renderError(new InsufficientBalanceError(), 'openai'))).toEqual({
      error: {
        code: 'service.insufficient_balance',
        message: 'the tenant balance is used up; top up to continue',
        type: 'insufficient_quota',
      },
    });
    const auth = new UpstreamError(502, 401, 'refused', 'upstream_auth_error', false);
    expect((bodyOf(renderError(auth, 'openai')).error as { type: string }).type).toBe('upstream_auth_error');
  });
});

describe('the request id in error bodies', () => {
  it('goes beside the error as request_id, in both dialects and in stream error events', () => {
    const error = new InvalidRequestError('bad');
    expect(bodyOf(renderError(error, 'openai', 'req_1'))).toEqual({
      error: { code: 'invalid_request', message: 'bad', type: 'invalid_request_error' },
      request_id: 'req_1',
    });
    expect(bodyOf(renderError(error, 'anthropic', 'req_2'))).toEqual({
      type: 'error',
      error: { code: 'invalid_request', message: 'bad', type: 'invalid_request_error' },
      request_id: 'req_2',
    });
    expect(renderStreamError(error, 'openai', 'req_3')).toContain('"request_id":"req_3"');
    const anthropicEvent = renderStreamError(error, 'anthropic', 'req_4');
    expect(anthropicEvent.startsWith('event: error\n')).toBe(true);
    expect(anthropicEvent).toContain('"request_id":"req_4"');
  });
});
