import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors/gateway-error.ts';
import { renderError } from '../../errors/render-error.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { classifyGeminiError, convertGeminiError, parseGoogleError, parseRetryDelay } from './errors.ts';

const fixtureText = translatorFixtures('openai-to-gemini').text;

describe('classifyGeminiError', () => {
  it("classifies Gemini's 400 for a bad API key as an upstream credential failure (502), by ErrorInfo.reason", () => {
    const classification = classifyGeminiError(400, fixtureText('api-key-invalid.error.json'));
    expect(classification).toEqual({
      kind: 'upstream_auth',
      statusCode: 502,
      type: 'upstream_auth_error',
      retryable: false,
      upstreamStatus: 400,
      googleStatus: 'INVALID_ARGUMENT',
      reason: 'API_KEY_INVALID',
      message:
        'the upstream provider (gemini) refused the credential the gateway used: API key not valid. Please pass a valid API key.',
    });
  });

  it('does not read the message: the same text without the ErrorInfo reason is a plain 400', () => {
    const body = JSON.parse(fixtureText('api-key-invalid.error.json'));
    body.error.details = [];
    expect(classifyGeminiError(400, body).kind).toBe('invalid_request');
  });

  it('treats a disabled API on the key’s project (403 SERVICE_DISABLED) as a credential failure', () => {
    expect(classifyGeminiError(403, fixtureText('service-disabled.error.json'))).toMatchObject({
      kind: 'upstream_auth',
      statusCode: 502,
      reason: 'SERVICE_DISABLED',
    });
  });

  it('classifies RESOURCE_EXHAUSTED as a retryable rate limit with the delay from RetryInfo', () => {
    expect(classifyGeminiError(429, fixtureText('quota.error.json'))).toMatchObject({
      kind: 'rate_limited',
      statusCode: 429,
      type: 'rate_limit_error',
      retryable: true,
      googleStatus: 'RESOURCE_EXHAUSTED',
      retryAfterSeconds: 34,
    });
  });

  it('falls back to the Retry-After header when RetryInfo is absent', () => {
    const body = {
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
      },
    };
    expect(classifyGeminiError(429, body, { 'retry-after': '7' }).retryAfterSeconds).toBe(7);
    expect(classifyGeminiError(429, body).retryAfterSeconds).toBeUndefined();
  });

  it.each([
    ['invalid-schema.error.json', 400, 'invalid_request', 400, 'invalid_request_error', false],
    ['not-found.error.json', 404, 'not_found', 404, 'not_found_error', false],
    ['unavailable.error.json', 503, 'unavailable', 503, 'api_error', true],
    ['internal.error.json', 500, 'upstream_failure', 502, 'api_error', true],
  ] as const)('maps %s (HTTP %i) to %s → %i', (name, httpStatus, kind, statusCode, type, retryable) => {
    const classification = classifyGeminiError(httpStatus, fixtureText(name));
    expect(classification).toMatchObject({ kind, statusCode, type, retryable, upstreamStatus: httpStatus });
    expect(classification.message).toBe(JSON.parse(fixtureText(name)).error.message);
  });

  it.each([
    [401, 'upstream_auth', 502],
    [408, 'timeout', 504],
    [413, 'payload_too_large', 413],
    [504, 'timeout', 504],
    [409, 'invalid_request', 409],
    [502, 'upstream_failure', 502],
  ] as const)('maps a bare HTTP %i to %s → %i', (httpStatus, kind, statusCode) => {
    expect(classifyGeminiError(httpStatus, '<html>Bad Gateway</html>')).toMatchObject({ kind, statusCode });
  });

  it('uses the body’s code, then its canonical status, for an in-stream error without an HTTP status', () => {
    expect(
      classifyGeminiError(0, { error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' } })
        .kind,
    ).toBe('rate_limited');
    expect(classifyGeminiError(200, { error: { message: 'gone', status: 'DEADLINE_EXCEEDED' } }).kind).toBe(
      'timeout',
    );
  });
});

describe('convertGeminiError', () => {
  it('builds an UpstreamError carrying Retry-After, rendered in the OpenAI envelope', () => {
    const error = convertGeminiError(429, JSON.parse(fixtureText('quota.error.json')));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.statusCode).toBe(429);
    expect(error.retryable).toBe(true);
    expect((error as UpstreamError).upstreamStatus).toBe(429);
    const rendered = renderError(error, 'openai');
    expect(rendered.statusCode).toBe(429);
    expect(rendered.headers['retry-after']).toBe('34');
    expect(JSON.parse(rendered.body).error.type).toBe('rate_limit_error');
  });

  it('rounds a fractional retry delay up to whole seconds', () => {
    const body = {
      error: {
        code: 503,
        message: 'busy',
        status: 'UNAVAILABLE',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.200s' }],
      },
    };
    expect(convertGeminiError(503, body).headers).toEqual({ 'retry-after': '2' });
  });

  it('gives a credential failure as a 502 the client can tell apart from its own key being wrong', () => {
    const error = convertGeminiError(400, fixtureText('api-key-invalid.error.json'));
    expect(error.statusCode).toBe(502);
    expect(error.type).toBe('upstream_auth_error');
    expect(error.retryable).toBe(false);
    expect(error.headers).toEqual({});
  });
});

describe('parseGoogleError', () => {
  it('reads text, bytes, objects and the array that non-SSE streams wrap errors in', () => {
    const text = fixtureText('not-found.error.json');
    const expected = JSON.parse(text).error;
    expect(parseGoogleError(text)).toEqual(expected);
    expect(parseGoogleError(new TextEncoder().encode(text))).toEqual(expected);
    expect(parseGoogleError(`[${text}]`)).toEqual(expected);
    expect(parseGoogleError('not json')).toBeUndefined();
    expect(parseGoogleError({ message: 'no error key' })).toBeUndefined();
  });
});

describe('parseRetryDelay', () => {
  it('parses protobuf Duration strings', () => {
    expect(parseRetryDelay('34s')).toBe(34);
    expect(parseRetryDelay('0.500s')).toBe(0.5);
    expect(parseRetryDelay('34')).toBeUndefined();
    expect(parseRetryDelay(34)).toBeUndefined();
  });
});
