import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from './settings.ts';

const HEX_KEY = 'a1'.repeat(32);
const SIGNING = 'signing-secret-0123456789abcdef0123456789';
const OLD = 'old:verify-secret-0123456789abcdef012345678';
const load = (env: Record<string, string>, cwd?: string) => loadSettings(env, ['openai'], cwd);

/** A folder laid out like a mounted Secret: one file per key, each ending with a newline. */
function secretDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'settings-keys-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

describe('loadSettings: the encryption and token keys', () => {
  it('reads them from the environment (standalone and plain deployments)', () => {
    const settings = load({
      SERVICE_ENCRYPTION_KEY: HEX_KEY,
      SERVICE_TOKEN_SIGNING_KEY: SIGNING,
      SERVICE_TOKEN_VERIFY_KEYS: OLD,
    });
    expect(settings.encryptionKey).toEqual(Buffer.from(HEX_KEY, 'hex'));
    expect(settings.tokenSigningKeys.map((key) => key.id)).toEqual(['k1', 'old']);
  });

  it('reads them from files (a mounted Secret), trailing newlines dropped', () => {
    const base64Key = Buffer.from(HEX_KEY, 'hex').toString('base64');
    const dir = secretDir({
      'encryption-key': `${base64Key}\n`,
      'signing-key': `${SIGNING}\n`,
      'verify-keys': `${OLD}\n`,
    });
    const settings = load({
      SERVICE_ENCRYPTION_KEY_FILE: join(dir, 'encryption-key'),
      SERVICE_TOKEN_SIGNING_KEY_FILE: join(dir, 'signing-key'),
      SERVICE_TOKEN_VERIFY_KEYS_FILE: join(dir, 'verify-keys'),
    });
    expect(settings.encryptionKey).toEqual(Buffer.from(HEX_KEY, 'hex'));
    expect(settings.tokenSigningKeys).toEqual([
      { id: 'k1', secret: SIGNING },
      { id: 'old', secret: 'verify-secret-0123456789abcdef012345678' },
    ]);
  });

  it('resolves a relative path against the working directory', () => {
    const dir = secretDir({ 'encryption-key': HEX_KEY });
    expect(load({ SERVICE_ENCRYPTION_KEY_FILE: 'encryption-key' }, dir).encryptionKey).toHaveLength(32);
  });

  it('takes a missing verify-keys file as none: an optional Secret key is projected as no file', () => {
    const dir = secretDir({ 'signing-key': SIGNING });
    const settings = load({
      SERVICE_TOKEN_SIGNING_KEY_FILE: join(dir, 'signing-key'),
      SERVICE_TOKEN_VERIFY_KEYS_FILE: join(dir, 'verify-keys'),
    });
    expect(settings.tokenSigningKeys.map((key) => key.id)).toEqual(['k1']);
  });

  it('refuses a key given both ways, or a key file that is missing, empty or malformed', () => {
    const dir = secretDir({ empty: '\n', short: 'abcd\n', 'signing-key': SIGNING });
    expect(() =>
      load({ SERVICE_ENCRYPTION_KEY: HEX_KEY, SERVICE_ENCRYPTION_KEY_FILE: join(dir, 'short') }),
    ).toThrow(/SERVICE_ENCRYPTION_KEY or SERVICE_ENCRYPTION_KEY_FILE, not both/);
    expect(() => load({ SERVICE_ENCRYPTION_KEY_FILE: join(dir, 'absent') })).toThrow(
      /SERVICE_ENCRYPTION_KEY_FILE cannot be read/,
    );
    expect(() => load({ SERVICE_TOKEN_SIGNING_KEY_FILE: join(dir, 'absent') })).toThrow(
      /SERVICE_TOKEN_SIGNING_KEY_FILE cannot be read/,
    );
    expect(() => load({ SERVICE_ENCRYPTION_KEY_FILE: join(dir, 'empty') })).toThrow(/empty file/);
    expect(() => load({ SERVICE_ENCRYPTION_KEY_FILE: join(dir, 'short') })).toThrow(
      /SERVICE_ENCRYPTION_KEY_FILE must hold 32 bytes/,
    );
    expect(() => load({ SERVICE_TOKEN_VERIFY_KEYS_FILE: join(dir, 'signing-key') })).toThrow(
      /SERVICE_TOKEN_VERIFY_KEYS needs SERVICE_TOKEN_SIGNING_KEY/,
    );
  });

  it('never puts a key file’s content in its error', () => {
    const dir = secretDir({ 'encryption-key': 'not-a-key-but-secret-looking-material\n' });
    const error = (() => {
      try {
        load({ SERVICE_ENCRYPTION_KEY_FILE: join(dir, 'encryption-key') });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(SettingsError);
    expect(String(error)).not.toContain('secret-looking');
  });
});
