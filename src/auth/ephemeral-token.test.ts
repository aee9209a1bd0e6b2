import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidKeyError } from '../errors/gateway-error.ts';
import { encodeToken, newJti, type TokenClaims, verifyToken } from './ephemeral-token.ts';

const KEY = { id: 'k1', secret: 'a'.repeat(40) };
const OTHER = { id: 'k1', secret: 'b'.repeat(40) };
const KEYS = new Map([[KEY.id, KEY.secret]]);
const NOW = 1_800_000_000_000;

function claims(overrides: Partial<TokenClaims> = {}): TokenClaims {
  return {
    v: 1,
    jti: newJti(),
    pk: 'key_abc',
    tenant: 'acme',
    workspace: 'default',
    scopes: ['chat', 'model:gpt-4o'],
    iat: NOW - 1000,
    exp: NOW + 3_600_000,
    ...overrides,
  };
}

/** Signs arbitrary text the way the codec does, to forge tokens with well-formed signatures. */
function signRaw(payloadText: string, key = KEY): string {
  const signed = `tt_ev_${key.id}.${Buffer.from(payloadText).toString('base64url')}`;
  return `${signed}.${createHmac('sha256', key.secret).update(signed).digest('base64url')}`;
}

const rejects = (token: string) => expect(() => verifyToken(token, KEYS, NOW)).toThrow(InvalidKeyError);

describe('verifyToken', () => {
  it('accepts a token it minted and returns its claims', () => {
    const original = claims({ budget: 5000, limits: { requestsPerMinute: 10 } });
    expect(verifyToken(encodeToken(original, KEY), KEYS, NOW)).toEqual(original);
  });

  it('accepts tokens signed with any configured verify key (rotation)', () => {
    const old = { id: 'old', secret: 'c'.repeat(40) };
    const keys = new Map([
      [KEY.id, KEY.secret],
      [old.id, old.secret],
    ]);
    expect(verifyToken(encodeToken(claims(), old), keys, NOW).tenant).toBe('acme');
  });

  it('refuses everything when no key is configured', () => {
    expect(() => verifyToken(encodeToken(claims(), KEY), new Map(), NOW)).toThrow(InvalidKeyError);
  });

  it('refuses expired tokens and tokens issued in the future', () => {
    rejects(encodeToken(claims({ exp: NOW - 1 }), KEY));
    rejects(encodeToken(claims({ iat: NOW + 120_000, exp: NOW + 200_000 }), KEY));
  });

  it('enforces the 24-hour ceiling whatever the claims say', () => {
    rejects(encodeToken(claims({ iat: NOW - 1000, exp: NOW + 86_400_000 }), KEY));
    rejects(encodeToken(claims({ iat: NOW - 86_400_001, exp: NOW + 1000 }), KEY));
  });

  it('refuses a token re-signed with another key under the same key id', () => {
    rejects(encodeToken(claims(), OTHER));
  });

  it('refuses every truncation of a valid token', () => {
    const token = encodeToken(claims(), KEY);
    for (let length = 0; length < token.length; length++) rejects(token.slice(0, length));
  });

  it('refuses every single-character alteration of a valid token', () => {
    const token = encodeToken(claims(), KEY);
    const alphabet = 'AZaz09-_.=+/ ';
    for (let index = 0; index < token.length; index++) {
      for (const replacement of alphabet) {
        if (token[index] === replacement) continue;
        const altered = token.slice(0, index) + replacement + token.slice(index + 1);
        expect(() => verifyToken(altered, KEYS, NOW), `position ${index} -> ${replacement}`).toThrow(
          InvalidKeyError,
        );
      }
    }
  });

  it('refuses altered claims under the original signature', () => {
    const token = encodeToken(claims(), KEY);
    const [prefix, payload, signature] = token.split('.');
    const decoded = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as TokenClaims;
    for (const change of [
      { tenant: 'other' },
      { scopes: ['chat', 'embeddings'] },
      { exp: decoded.exp + 1 },
      { budget: 1e12 },
    ]) {
      const forged = Buffer.from(JSON.stringify({ ...decoded, ...change })).toString('base64url');
      rejects(`${prefix}.${forged}.${signature}`);
    }
  });

  it('refuses re-encoded signatures and payloads (padding, standard base64)', () => {
    const token = encodeToken(claims(), KEY);
    const [prefix, payload, signature] = token.split('.');
    const standard = Buffer.from(signature!, 'base64url').toString('base64');
    rejects(`${prefix}.${payload}.${standard}`);
    rejects(`${prefix}.${payload}.${signature}=`);
    rejects(`${prefix}.${payload}=.${signature}`);
  });

  it('refuses well-signed payloads with wrong shapes', () => {
    const bad: unknown[] = [
      null,
      [],
      'text',
      42,
      { ...claims(), v: 2 },
      { ...claims(), scopes: [] },
      { ...claims(), scopes: ['admin'] },
      { ...claims(), scopes: 'chat' },
      { ...claims(), jti: '' },
      { ...claims(), tenant: 'a'.repeat(300) },
      { ...claims(), exp: '9999999999999' },
      { ...claims(), budget: -1 },
      { ...claims(), budget: 1.5 },
      { ...claims(), limits: { requestsPerMinute: -5 } },
      { ...claims(), limits: { unknown: 1 } },
      { ...claims(), limits: [] },
    ];
    for (const payload of bad) rejects(signRaw(JSON.stringify(payload)));
    rejects(signRaw('{not json'));
  });

  it('refuses huge and random inputs quickly without throwing anything but InvalidKeyError', () => {
    rejects(`tt_ev_k1.${'A'.repeat(1_000_000)}.sig`);
    rejects('tt_ev_'.repeat(10_000));
    for (let round = 0; round < 500; round++) {
      rejects(`tt_ev_${randomBytes(1 + (round % 200)).toString('base64url')}`);
      rejects(
        `tt_ev_k1.${randomBytes(round % 300).toString('base64url')}.${randomBytes(32).toString('base64url')}`,
      );
    }
  });
});
