import { describe, expect, it } from 'vitest';
import { ConnectionRejectedError, UpstreamError, UpstreamUnreachableError } from './gateway-error.ts';
import { renderError } from './render-error.ts';
import { attributeToConnection, mapUpstreamError } from './upstream-errors.ts';

const refusedKey = JSON.stringify({
  error: { message: 'Incorrect API key provided: sk-ten***cdef.', code: 'invalid_api_key' },
});

describe('attributeToConnection', () => {
  it("turns an upstream 401 into 424 service.connection_rejected naming the Connection, never the upstream's message", () => {
    const error = attributeToConnection(
      mapUpstreamError('openai', 401, refusedKey, undefined),
      'openai',
      'team-key',
    );
    expect(error).toBeInstanceOf(ConnectionRejectedError);
    const rejected = error as ConnectionRejectedError;
    expect(rejected).toMatchObject({
      statusCode: 424,
      code: 'service.connection_rejected',
      type: 'authentication_error',
      retryable: false,
      upstreamStatus: 401,
    });
    expect(rejected.message).toContain("connection 'team-key'");
    expect(rejected.message).not.toContain('sk-ten');
  });

  it("counts a provider's own credential refusal (type upstream_auth_error, whatever the status) as the key's", () => {
    const geminiBadKey = new UpstreamError(502, 400, 'API key not valid', 'upstream_auth_error', false);
    expect(attributeToConnection(geminiBadKey, 'gemini', 'g')).toMatchObject({
      statusCode: 424,
      type: 'authentication_error',
      upstreamStatus: 400,
    });
  });

  it('says "denied" with permission_error for a 403 that is not a bad key', () => {
    const error = attributeToConnection(
      mapUpstreamError('anthropic', 403, '{}', undefined),
      'anthropic',
      'a',
    );
    expect(error).toMatchObject({ statusCode: 424, type: 'permission_error', upstreamStatus: 403 });
    expect((error as Error).message).toContain("denied connection 'a'");
  });

  it('leaves every other error as it is', () => {
    for (const error of [
      mapUpstreamError('openai', 429, '{}', '3'),
      mapUpstreamError('openai', 400, '{}', undefined),
      mapUpstreamError('openai', 500, '{}', undefined),
      new UpstreamUnreachableError('openai'),
      new Error('a bug'),
    ])
      expect(attributeToConnection(error, 'openai', 'c')).toBe(error);
  });

  it('renders as a 424 in both envelopes, the Anthropic one with type "error" and an Anthropic error type', () => {
    const error = new ConnectionRejectedError('team-key', 'openai', 401, false);
    const openai = renderError(error, 'openai');
    expect(openai.statusCode).toBe(424);
    expect(JSON.parse(openai.body)).toEqual({
      error: { code: 'service.connection_rejected', type: 'authentication_error', message: error.message },
    });
    const anthropic = renderError(error, 'anthropic');
    expect(anthropic.statusCode).toBe(424);
    expect(JSON.parse(anthropic.body)).toEqual({
      type: 'error',
      error: { code: 'service.connection_rejected', type: 'authentication_error', message: error.message },
    });
  });
});
