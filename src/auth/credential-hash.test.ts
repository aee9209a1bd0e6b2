import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateCredential, hashCredential, keyHint } from './credential-hash.ts';

describe('generateCredential', () => {
  it.each([
    ['tt_sk_', /^key_[A-Za-z0-9_-]{12}$/],
    ['tt_pat_', /^pat_[A-Za-z0-9_-]{12}$/],
    ['tt_prov_', /^prov_[A-Za-z0-9_-]{12}$/],
  ] as const)('makes a %s credential with a kind-specific id', (prefix, idPattern) => {
    const credential = generateCredential(prefix);
    expect(credential.id).toMatch(idPattern);
    // 32 bytes are 43 base64url characters without padding.
    expect(credential.plaintext).toMatch(new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`));
    expect(credential.hash).toBe(createHash('sha256').update(credential.plaintext).digest('hex'));
  });

  it('never repeats a plaintext or an id', () => {
    const credentials = Array.from({ length: 50 }, () => generateCredential('tt_sk_'));
    expect(new Set(credentials.map((credential) => credential.plaintext)).size).toBe(50);
    expect(new Set(credentials.map((credential) => credential.id)).size).toBe(50);
  });
});

describe('hashCredential', () => {
  it('is the hex SHA-256 of the whole plaintext', () => {
    expect(hashCredential('tt_sk_abc')).toBe(createHash('sha256').update('tt_sk_abc').digest('hex'));
    expect(hashCredential('tt_sk_abc')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('keyHint', () => {
  it('keeps a short vendor marker and the last four characters', () => {
    expect(keyHint('sk-proj-0123456789abcdefWXYZ')).toBe('sk-…WXYZ');
  });

  it('shows only the last four characters when there is no vendor marker', () => {
    expect(keyHint('AKIAIOSFODNN7EXAMPLE')).toBe('…MPLE');
    expect(keyHint('AIzaSyD-0123456789abcd')).toBe('…abcd');
  });

  it('shows only that a key is set for a secret shorter than 12 characters, nothing of it', () => {
    expect(keyHint('sk-12345678')).toBe('…');
    expect(keyHint('x')).toBe('…');
  });

  it('is empty only without a secret', () => {
    expect(keyHint('')).toBe('');
    expect(keyHint('  ')).toBe('');
  });

  it('never shows more than four characters of the secret itself', () => {
    const secret = 'abcdefghijklmnopqrstuvwxyz';
    const hint = keyHint(secret);
    expect(hint.replace('…', '')).toBe('wxyz');
  });
});
