import { describe, expect, it } from 'vitest';
import { errorFromBody, GatewayError, GatewayStreamError, readErrorEnvelope } from './errors.ts';

const noHeaders = { get: () => null };

describe('readErrorEnvelope', () => {
  it("reads the gateway's envelope", () => {
    expect(
      readErrorEnvelope({
        error: { code: 'service.invalid_key', message: 'bad key', type: 'authentication_error' },
      }),
    ).toEqual({ code: 'service.invalid_key', message: 'bad key', type: 'authentication_error' });
  });

  it('reads the Anthropic-dialect envelope (type: error at the top)', () => {
    expect(
      readErrorEnvelope({
        type: 'error',
        error: { code: 'service.scope_denied', message: 'no', type: 'permission_error' },
      }),
    ).toEqual({ code: 'service.scope_denied', message: 'no', type: 'permission_error' });
  });

  it('is undefined for a body that is not an envelope', () => {
    expect(readErrorEnvelope('Bad Gateway')).toBeUndefined();
    expect(readErrorEnvelope({ message: 'x' })).toBeUndefined();
  });
});

describe('errorFromBody', () => {
  it('carries status, code, message and type', () => {
    const error = errorFromBody(402, {
      error: { code: 'service.insufficient_balance', message: 'top up', type: 'billing_error' },
    });
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      status: 402,
      code: 'service.insufficient_balance',
      message: 'top up',
      type: 'billing_error',
    });
  });

  it('gives http_<status> and the text for a body that is not an envelope', () => {
    expect(errorFromBody(502, '<html>Bad Gateway</html>')).toMatchObject({
      status: 502,
      code: 'http_502',
      message: '<html>Bad Gateway</html>',
    });
    expect(errorFromBody(503, '').message).toBe('the gateway answered HTTP 503');
  });

  it('reads Retry-After in seconds', () => {
    const error = errorFromBody(
      429,
      { error: { code: 'service.rate_limited', message: 'slow down' } },
      {
        headers: { get: (name: string) => (name === 'retry-after' ? '7' : null) },
      },
    );
    expect(error.retryAfterSeconds).toBe(7);
    expect(errorFromBody(429, {}, { headers: noHeaders }).retryAfterSeconds).toBeUndefined();
  });

  it('makes a GatewayStreamError for an error event of a stream', () => {
    const error = errorFromBody(
      200,
      { error: { code: 'service.upstream_disconnected', message: 'cut' } },
      {
        stream: true,
      },
    );
    expect(error).toBeInstanceOf(GatewayStreamError);
    expect(error).toMatchObject({
      status: 200,
      code: 'service.upstream_disconnected',
      name: 'GatewayStreamError',
    });
  });
});
