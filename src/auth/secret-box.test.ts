import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  canonicalJson,
  createSecretSealer,
  digestSecret,
  loadOrCreateKeyFile,
  SecretBoxError,
  sealSecret,
  unsealSecret,
} from './secret-box.ts';

const key = randomBytes(32);
const material = { apiKey: 'sk-test-0123456789', extra: { nested: [1, 2, 3] } };

function unsealError(sealed: string, withKey: Buffer = key): SecretBoxError {
  try {
    unsealSecret(withKey, sealed);
  } catch (error) {
    if (error instanceof SecretBoxError) return error;
    throw error;
  }
  throw new Error('unseal succeeded');
}

describe('sealSecret / unsealSecret', () => {
  it('round-trips a JSON object', () => {
    expect(unsealSecret(key, sealSecret(key, material))).toEqual(material);
  });

  it('lays out version, IV, tag and ciphertext, with a fresh IV each time', () => {
    const first = Buffer.from(sealSecret(key, material), 'base64');
    const second = Buffer.from(sealSecret(key, material), 'base64');
    expect(first[0]).toBe(1);
    expect(first.length).toBe(1 + 12 + 16 + Buffer.byteLength(JSON.stringify(material)));
    expect(first.subarray(1, 13).equals(second.subarray(1, 13))).toBe(false);
  });

  it('does not contain the plaintext', () => {
    const sealed = Buffer.from(sealSecret(key, material), 'base64').toString('latin1');
    expect(sealed).not.toContain('sk-test');
  });

  it.each([
    ['the ciphertext', 40],
    ['the tag', 20],
    ['the IV', 5],
  ])('detects a change to %s', (_part, offset) => {
    const bytes = Buffer.from(sealSecret(key, material), 'base64');
    bytes[offset] = (bytes[offset] ?? 0) ^ 0x01;
    expect(unsealError(bytes.toString('base64')).code).toBe('tampered');
  });

  it('refuses another key as tampering', () => {
    expect(unsealError(sealSecret(key, material), randomBytes(32)).code).toBe('tampered');
  });

  it('refuses an unknown version and a truncated value', () => {
    const bytes = Buffer.from(sealSecret(key, material), 'base64');
    bytes[0] = 2;
    expect(unsealError(bytes.toString('base64')).code).toBe('unsupported_version');
    expect(unsealError(bytes.subarray(0, 20).toString('base64')).code).toBe('malformed');
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => sealSecret(randomBytes(16), material)).toThrow(SecretBoxError);
  });
});

describe('digestSecret', () => {
  it('is stable for equal objects whatever their key order', () => {
    const reordered = { extra: { nested: [1, 2, 3] }, apiKey: 'sk-test-0123456789' };
    expect(digestSecret(key, material)).toBe(digestSecret(key, reordered));
    expect(digestSecret(key, material)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with the material and with the key', () => {
    const digest = digestSecret(key, material);
    expect(digestSecret(key, { ...material, apiKey: 'sk-test-0123456780' })).not.toBe(digest);
    expect(digestSecret(randomBytes(32), material)).not.toBe(digest);
  });

  it('canonicalises nested key order but keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, 1] } })).toBe('{"a":{"c":[3,1],"d":2},"b":1}');
  });
});

describe('createSecretSealer', () => {
  it('binds seal, unseal and digest to one key', () => {
    const sealer = createSecretSealer(key);
    expect(sealer.unseal(sealer.seal(material))).toEqual(material);
    expect(sealer.digest(material)).toBe(digestSecret(key, material));
  });
});

describe('loadOrCreateKeyFile', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates a 32-byte key with mode 0600 and reads the same key back', async () => {
    dir = await mkdtemp(join(tmpdir(), 'secret-box-'));
    const path = join(dir, 'state', 'encryption.key');
    const created = await loadOrCreateKeyFile(path);
    expect(created.length).toBe(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readFile(path, 'utf8')).trim()).toBe(created.toString('hex'));
    expect((await loadOrCreateKeyFile(path)).equals(created)).toBe(true);
  });

  it('gives concurrent callers the same key', async () => {
    dir = await mkdtemp(join(tmpdir(), 'secret-box-'));
    const path = join(dir, 'encryption.key');
    const keys = await Promise.all(Array.from({ length: 5 }, () => loadOrCreateKeyFile(path)));
    for (const loaded of keys) expect(loaded.equals(keys[0] as Buffer)).toBe(true);
  });

  it('refuses a file that does not hold 64 hex digits', async () => {
    dir = await mkdtemp(join(tmpdir(), 'secret-box-'));
    const path = join(dir, 'encryption.key');
    await writeFile(path, 'not a key');
    await expect(loadOrCreateKeyFile(path)).rejects.toThrow(/64 hex digits/);
  });
});
