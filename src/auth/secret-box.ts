/**
 * Secrets at rest in the config store (DESIGN section 3): provider credentials are sealed with
 * AES-256-GCM under a 32-byte key mounted into operator and gateway, and carry a keyed digest so
 * that a reconcile can tell "unchanged" without unsealing (the seal itself uses a random IV).
 *
 * Sealed form: base64( version (1 byte) | IV (12 bytes) | GCM tag (16 bytes) | ciphertext ).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

export const SECRET_KEY_BYTES = 32;
const SEAL_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
/** Separates the digest subkey from the encryption key (HKDF info string). */
const DIGEST_KEY_INFO = 'gateway.service.io/secret-digest/v1';

export type SecretBoxErrorCode = 'bad_key' | 'malformed' | 'unsupported_version' | 'tampered';

export class SecretBoxError extends Error {
  readonly code: SecretBoxErrorCode;

  constructor(code: SecretBoxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SecretBoxError';
    this.code = code;
  }
}

function checkKey(key: Uint8Array): void {
  if (key.length !== SECRET_KEY_BYTES) {
    throw new SecretBoxError('bad_key', `secret key must be ${SECRET_KEY_BYTES} bytes, got ${key.length}`);
  }
}

/** JSON with object keys sorted at every depth, so equal objects serialise to equal strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    const sorted: Record<string, unknown> = {};
    for (const name of Object.keys(inner).sort()) sorted[name] = (inner as Record<string, unknown>)[name];
    return sorted;
  });
}

/** Encrypts and authenticates a JSON-serialisable object. */
export function sealSecret(key: Uint8Array, value: object): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const version = Buffer.from([SEAL_VERSION]);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  // The version byte is authenticated too, so it cannot be swapped to downgrade the format.
  cipher.setAAD(version);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([version, iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

/** Decrypts a sealed object; throws SecretBoxError (code `tampered`) if it fails authentication. */
export function unsealSecret<T extends object = Record<string, string>>(key: Uint8Array, sealed: string): T {
  checkKey(key);
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < HEADER_BYTES) {
    throw new SecretBoxError('malformed', 'sealed secret is too short');
  }
  if (bytes[0] !== SEAL_VERSION) {
    throw new SecretBoxError('unsupported_version', `sealed secret has unknown version ${bytes[0]}`);
  }
  const iv = bytes.subarray(1, 1 + IV_BYTES);
  const tag = bytes.subarray(1 + IV_BYTES, HEADER_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(bytes.subarray(0, 1));
  decipher.setAuthTag(tag);
  let plaintext: string;
  try {
    plaintext = Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch (error) {
    throw new SecretBoxError('tampered', 'sealed secret failed authentication (wrong key or altered)', {
      cause: error,
    });
  }
  return JSON.parse(plaintext) as T;
}

/** Hex HMAC-SHA256 of the object's canonical JSON, under a subkey derived from `key` with HKDF. */
export function digestSecret(key: Uint8Array, value: object): string {
  checkKey(key);
  const subkey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), DIGEST_KEY_INFO, SECRET_KEY_BYTES));
  return createHmac('sha256', subkey).update(canonicalJson(value), 'utf8').digest('hex');
}

/** The sealing a reconcile needs (see operator/desired-config.ts), bound to one key. */
export interface SecretSealer {
  seal(value: object): string;
  digest(value: object): string;
  unseal<T extends object = Record<string, string>>(sealed: string): T;
}

export function createSecretSealer(key: Uint8Array): SecretSealer {
  checkKey(key);
  const ownKey = Buffer.from(key);
  return {
    seal: (value) => sealSecret(ownKey, value),
    digest: (value) => digestSecret(ownKey, value),
    unseal: <T extends object>(sealed: string) => unsealSecret<T>(ownKey, sealed),
  };
}

function parseHexKey(text: string, path: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new SecretBoxError(
      'bad_key',
      `key file ${path} must hold ${SECRET_KEY_BYTES} bytes as 64 hex digits`,
    );
  }
  return Buffer.from(hex, 'hex');
}

/**
 * Standalone's encryption key: read from `path` (64 hex digits), or created there with mode 0600
 * on first start. The new key is written to a temporary file and hard-linked into place, which
 * fails if the path exists: two processes starting together agree on one complete key.
 */
export async function loadOrCreateKeyFile(path: string): Promise<Buffer> {
  try {
    return parseHexKey(await readFile(path, 'utf8'), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const key = randomBytes(SECRET_KEY_BYTES);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${key.toString('hex')}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return parseHexKey(await readFile(path, 'utf8'), path);
  } finally {
    await rm(temporary, { force: true });
  }
  return key;
}
