import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { generateRequestId, isSaneRequestId, MAX_REQUEST_ID_LENGTH, requestIdOf } from './request-id.ts';

const GENERATED = /^req_[0-9a-f]{16}[0-9a-z]+$/;
const withHeader = (value: string | string[] | undefined) =>
  ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as unknown as IncomingMessage;

describe('isSaneRequestId', () => {
  it('keeps the id formats clients send: UUIDs, ULIDs, base64, req_ ids, up to 128 characters', () => {
    for (const id of [
      '123e4567-e89b-12d3-a456-426614174000',
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      'YWJjZGVmZ2hpams/+=',
      'req_abc123',
      'trace:span.1@host',
      'x'.repeat(MAX_REQUEST_ID_LENGTH),
    ])
      expect(isSaneRequestId(id), id).toBe(true);
  });

  it('refuses empty, long, spaced, quoted, control or non-ASCII ids', () => {
    for (const id of [
      '',
      'x'.repeat(MAX_REQUEST_ID_LENGTH + 1),
      'has space',
      'a"quote',
      'semi;colon',
      '<script>',
      'tab\there',
      'new\nline',
      'café',
      'a, b',
    ])
      expect(isSaneRequestId(id), JSON.stringify(id)).toBe(false);
    expect(isSaneRequestId(undefined)).toBe(false);
    expect(isSaneRequestId(['a', 'b'])).toBe(false);
  });
});

describe('generateRequestId', () => {
  it('makes unique ids of one shape, each one itself sane', () => {
    const ids = new Set<string>();
    for (let index = 0; index < 10_000; index++) ids.add(generateRequestId());
    expect(ids.size).toBe(10_000);
    for (const id of ids) {
      expect(id).toMatch(GENERATED);
      expect(isSaneRequestId(id)).toBe(true);
    }
  });
});

describe('requestIdOf', () => {
  it("takes the client's sane x-request-id, and makes one for anything else", () => {
    expect(requestIdOf(withHeader('client-id-1'))).toBe('client-id-1');
    expect(requestIdOf(withHeader(undefined))).toMatch(GENERATED);
    expect(requestIdOf(withHeader('not sane'))).toMatch(GENERATED);
    expect(requestIdOf(withHeader(['a', 'b']))).toMatch(GENERATED);
  });
});
