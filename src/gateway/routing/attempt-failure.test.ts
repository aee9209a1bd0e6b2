import { describe, expect, it } from 'vitest';
import {
  ConnectionRejectedError,
  InvalidRequestError,
  UpstreamDisconnectedError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../../errors/gateway-error.ts';
import { mapUpstreamError } from '../../errors/upstream-errors.ts';
import { UpstreamAbortedError } from '../../upstream/upstream-client.ts';
import { classifyAttemptFailure, isRetried, verdictOf } from './attempt-failure.ts';

const ALL = ['rateLimited', 'serverError', 'timeout', 'connectError'] as const;
const status = (code: number, retryAfter?: string) =>
  classifyAttemptFailure(mapUpstreamError('openai', code, '{"error":{"message":"x"}}', retryAfter));

describe('classifyAttemptFailure', () => {
  it('retries 429 and 500, 502, 503, 504, 529 from the upstream', () => {
    expect(status(429).kind).toBe('rateLimited');
    for (const code of [500, 502, 503, 504, 529]) expect(status(code).kind).toBe('serverError');
    expect(isRetried('rateLimited', ALL)).toBe(true);
    expect(isRetried('serverError', ALL)).toBe(true);
  });

  it('retries only what retry.on names', () => {
    expect(isRetried('serverError', ['rateLimited'])).toBe(false);
    expect(isRetried('rateLimited', ['rateLimited'])).toBe(true);
    expect(isRetried('timeout', [])).toBe(false);
  });

  it('moves on from 401, 403 and 404 (and a Connection key refused) whatever retry.on says', () => {
    for (const code of [401, 403, 404]) expect(status(code).kind).toBe('rejected');
    const refused = new ConnectionRejectedError('mine', 'openai', 401, false);
    expect(classifyAttemptFailure(refused).kind).toBe('rejected');
    expect(isRetried('rejected', [])).toBe(true);
  });

  it('never retries a 400, nor an error of the request, nor a client gone away', () => {
    expect(status(400).kind).toBe('final');
    expect(status(422).kind).toBe('final');
    expect(status(501).kind).toBe('final');
    expect(classifyAttemptFailure(new InvalidRequestError('bad')).kind).toBe('final');
    expect(classifyAttemptFailure(new Error('bug')).kind).toBe('final');
    expect(classifyAttemptFailure(new UpstreamAbortedError()).kind).toBe('aborted');
    for (const kind of ['final', 'aborted'] as const) expect(isRetried(kind, ALL)).toBe(false);
  });

  it('tells a refused or reset connection and a timeout apart', () => {
    expect(classifyAttemptFailure(new UpstreamUnreachableError('openai')).kind).toBe('connectError');
    expect(classifyAttemptFailure(new UpstreamDisconnectedError('openai')).kind).toBe('connectError');
    expect(classifyAttemptFailure(new UpstreamTimeoutError('openai')).kind).toBe('timeout');
  });

  it("keeps the upstream's Retry-After in milliseconds", () => {
    expect(status(429, '2').retryAfterMs).toBe(2000);
    expect(status(503).retryAfterMs).toBeUndefined();
    expect(status(429, 'Wed, 21 Oct 2015 07:28:00 GMT').retryAfterMs).toBeUndefined();
  });

  it("moves the target's breaker on failures only: an answered 400 is healthy, an abort says nothing", () => {
    expect(verdictOf('serverError')).toBe('failed');
    expect(verdictOf('rejected')).toBe('failed');
    expect(verdictOf('final')).toBe('healthy');
    expect(verdictOf('aborted')).toBe('unknown');
  });
});
