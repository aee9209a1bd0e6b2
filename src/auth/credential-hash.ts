/**
 * Long-lived credentials (workspace API keys, PATs, provisioning keys): generation, the hash that
 * is stored instead of the plaintext, and the hint that may be shown in place of a secret.
 */
import { hash, randomBytes } from 'node:crypto';
import {
  API_KEY_PREFIX,
  PAT_PREFIX,
  PROVISIONING_KEY_PREFIX,
  type StoredCredentialPrefix,
} from './credential-prefixes.ts';

export type CredentialPrefix = StoredCredentialPrefix;

/** The public id of a credential starts with a kind marker, so logs and audit entries read well. */
const ID_PREFIX: Readonly<Record<CredentialPrefix, string>> = {
  [API_KEY_PREFIX]: 'key_',
  [PAT_PREFIX]: 'pat_',
  [PROVISIONING_KEY_PREFIX]: 'prov_',
};

/** 32 random bytes: the hash lookup then needs no salt or slow KDF (nothing to brute-force). */
const SECRET_BYTES = 32;
/** 9 random bytes encode to exactly 12 base64url characters. */
const ID_RANDOM_BYTES = 9;

export interface GeneratedCredential {
  /** Public identifier, safe to log and show (`key_…`, `pat_…`, `prov_…`). */
  id: string;
  /** The secret, returned to its owner once and never stored. */
  plaintext: string;
  /** Hex SHA-256 of `plaintext`, what the config store holds. */
  hash: string;
  /** `tt_sk_…abcd`: the prefix and four of the 43 random characters, so its owner can tell keys apart. */
  hint: string;
}

export function generateCredential(prefix: CredentialPrefix): GeneratedCredential {
  const plaintext = prefix + randomBytes(SECRET_BYTES).toString('base64url');
  const id = ID_PREFIX[prefix] + randomBytes(ID_RANDOM_BYTES).toString('base64url');
  return { id, plaintext, hash: hashCredential(plaintext), hint: `${prefix}…${plaintext.slice(-HINT_TAIL)}` };
}

/** Hex SHA-256 of the whole plaintext credential, prefix included. */
export function hashCredential(plaintext: string): string {
  // One-shot: on every request of a workspace key, a fraction of createHash's cost.
  return hash('sha256', plaintext, 'hex');
}

/**
 * Shorter secrets get a bare `…`: four characters of eleven would give too much away, and an empty
 * hint would read as "no key" (clients show a dash).
 */
const MIN_HINT_LENGTH = 12;
const HINT_TAIL = 4;
/**
 * A vendor marker such as `sk-` carries no secret entropy and tells the user which key it is;
 * it is kept only when it is this short and purely alphabetic.
 */
const VENDOR_MARKER = /^[A-Za-z]{2,3}-/;

/**
 * The only secret-derived value ever shown: `sk-…abcd` (vendor marker, ellipsis, last four
 * characters) or `…abcd`; `…` alone (a key is set, none of it shown) when the secret is shorter than
 * 12 characters; empty only when there is no secret.
 */
export function keyHint(secret: string): string {
  const trimmed = secret.trim();
  if (trimmed === '') return '';
  if (trimmed.length < MIN_HINT_LENGTH) return '…';
  const marker = VENDOR_MARKER.exec(trimmed)?.[0] ?? '';
  return `${marker}…${trimmed.slice(-HINT_TAIL)}`;
}

/** The only secret-derived text ever shown: from the API key, AWS key id or GCP account email. */
export function connectionKeyHint(material: Record<string, string>): string {
  if (material.apiKey) return keyHint(material.apiKey);
  if (material.awsAccessKeyId) return keyHint(material.awsAccessKeyId);
  if (material.gcpServiceAccountJson) {
    try {
      const email: unknown = JSON.parse(material.gcpServiceAccountJson).client_email;
      const at = typeof email === 'string' ? email.indexOf('@') : -1;
      return at >= 0 ? `…${(email as string).slice(at)}` : '';
    } catch {
      return '';
    }
  }
  return '';
}
