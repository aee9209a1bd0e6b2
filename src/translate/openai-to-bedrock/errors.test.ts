import { describe, expect, it } from 'vitest';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { convertBedrockError, normalizeBedrockErrorType, renderConverseStreamException } from './errors.ts';

interface ErrorFixture {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const fixture = (name: string): ErrorFixture => translatorFixtures('openai-to-bedrock').json(name);

function convert(name: string) {
  const { status, headers, body } = fixture(name);
  return convertBedrockError({
    provider: 'bedrock',
    status,
    body: JSON.stringify(body),
    errorType: headers['x-amzn-errortype'],
    retryAfter: headers['retry-after'],
  });
}

describe('convertBedrockError', () => {
  it.each([
    ['throttling.error.json', 429, 'rate_limit_error', true],
    ['validation.error.json', 400, 'invalid_request_error', false],
    ['access-denied.error.json', 403, 'permission_error', false],
    ['invalid-signature.error.json', 502, 'upstream_auth_error', false],
    ['unrecognized-client.error.json', 502, 'upstream_auth_error', false],
    ['model-not-ready.error.json', 429, 'rate_limit_error', true],
    ['service-unavailable.error.json', 503, 'overloaded_error', true],
    ['model-timeout.error.json', 504, 'timeout_error', true],
  ])('maps %s to %i %s', (name, status, type, retryable) => {
    const error = convert(name);
    expect(error.statusCode).toBe(status);
    expect(error.type).toBe(type);
    expect(error.retryable).toBe(retryable);
    expect(error.upstreamStatus).toBe(fixture(name).status);
  });

  it("keeps the upstream's message and error type, reading `Message` and `__type` too", () => {
    expect(convert('validation.error.json').message).toBe(
      "provider 'bedrock' answered 400 (ValidationException): Invocation of model ID anthropic.claude-3-5-sonnet-20241022-v2:0 with on-demand throughput isn't supported. Retry your request with the ID or ARN of an inference profile that contains this model.",
    );
    expect(convert('unrecognized-client.error.json').message).toBe(
      "provider 'bedrock' answered 403 (UnrecognizedClientException): The security token included in the request is invalid.",
    );
  });

  it('passes Retry-After on', () => {
    expect(convert('model-not-ready.error.json').headers['retry-after']).toBe('3');
  });

  it('falls back on the status without an error type, and on the raw text without JSON', () => {
    const error = convertBedrockError({ provider: 'bedrock', status: 500, body: 'upstream connect error' });
    expect(error.statusCode).toBe(502);
    expect(error.message).toBe("provider 'bedrock' answered 500: upstream connect error");
    expect(convertBedrockError({ provider: 'bedrock', status: 404, body: '{}' }).statusCode).toBe(404);
  });
});

describe('normalizeBedrockErrorType', () => {
  it.each([
    ['ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/', 'ThrottlingException'],
    ['throttlingException', 'ThrottlingException'],
    ['com.amazon.coral.service#UnrecognizedClientException', 'UnrecognizedClientException'],
    ['', undefined],
  ])('%s -> %s', (raw, expected) => {
    expect(normalizeBedrockErrorType(raw)).toBe(expected);
  });
});

describe('renderConverseStreamException', () => {
  it.each([
    ['validationException', 'invalid_request_error'],
    ['modelStreamErrorException', 'api_error'],
    ['serviceUnavailableException', 'overloaded_error'],
    ['internalServerException', 'api_error'],
  ])('renders %s as an OpenAI error chunk of type %s', (exceptionType, type) => {
    const event = renderConverseStreamException(exceptionType, '{"message":"boom"}');
    expect(JSON.parse(event.data).error).toMatchObject({ code: 'service.upstream_error', type });
  });
});
