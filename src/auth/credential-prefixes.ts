/**
 * The prefixes that say what a credential is (DESIGN section 4). Each is checked before anything
 * else, so a credential of the wrong kind is refused for what it is, never hashed and looked up.
 */
export const API_KEY_PREFIX = 'tt_sk_';
export const EPHEMERAL_TOKEN_PREFIX = 'tt_ev_';
export const PAT_PREFIX = 'tt_pat_';
export const PROVISIONING_KEY_PREFIX = 'tt_prov_';

/** The long-lived credentials, stored as hashes (ephemeral tokens are signed, not stored). */
export type StoredCredentialPrefix =
  | typeof API_KEY_PREFIX
  | typeof PAT_PREFIX
  | typeof PROVISIONING_KEY_PREFIX;
