/**
 * The memory runtime store's minted tokens and denylist: each token's owner until it expires, the
 * revoked tokens until theirs, and per-key revoke-all times for a day (no token lives longer), all
 * durable; each revocation announced on the revocation feed. Anything expired is dropped on read,
 * by the sweep and on load.
 */
import {
  assertKeyRevocation,
  assertTokenRecord,
  assertTokenRevocation,
  toTokenRecord,
} from '../runtime-records.ts';
import {
  KEY_REVOCATION_TTL_MS,
  type RevocationEvent,
  type Revocations,
  type RuntimeRevocations,
  type TokenRecord,
  type Unsubscribe,
} from '../types.ts';
import { MemoryFeed } from './feed.ts';
import type { PersistedState } from './persistence.ts';

type PersistedRevocations = Pick<PersistedState, 'tokens' | 'revokedTokens' | 'revokedKeys'>;

/** A key's revoke-all is needed until every token issued before it has expired. */
function keyRevocationExpiresAt(atMs: number): number {
  return atMs + KEY_REVOCATION_TTL_MS;
}

export class MemoryRevocations implements RuntimeRevocations {
  readonly #tokens = new Map<string, TokenRecord>();
  /** jti → the token's expiry (ms). */
  readonly #revokedTokens = new Map<string, number>();
  /** keyId → revoke-all time (ms). */
  readonly #revokedKeys = new Map<string, number>();
  readonly #feed: MemoryFeed<RevocationEvent>;
  readonly #onDurableChange: () => void;

  /**
   * `onDurableChange` is called after every change the state file must take up; `onError` is told
   * about feed listeners that threw.
   */
  constructor(onDurableChange: () => void, onError: (error: unknown) => void) {
    this.#onDurableChange = onDurableChange;
    this.#feed = new MemoryFeed(onError);
  }

  async recordToken(record: TokenRecord): Promise<void> {
    assertTokenRecord(record);
    // Already expired: nothing will ever ask about it (Redis could not even set its PX).
    if (record.expiresAtMs <= Date.now()) return;
    this.#tokens.set(record.jti, toTokenRecord(record) as TokenRecord);
    this.#onDurableChange();
  }

  async getToken(jti: string): Promise<TokenRecord | undefined> {
    const record = this.#tokens.get(jti);
    if (record === undefined) return undefined;
    if (record.expiresAtMs > Date.now()) return { ...record };
    this.#tokens.delete(jti);
    return undefined;
  }

  async revokeToken(jti: string, expiresAtMs: number): Promise<void> {
    assertTokenRevocation(jti, expiresAtMs);
    if (expiresAtMs <= Date.now()) return;
    // Revoked twice: the later expiry wins, as on Redis.
    const until = Math.max(this.#liveRevokedToken(jti) ?? expiresAtMs, expiresAtMs);
    if (until !== this.#revokedTokens.get(jti)) {
      this.#revokedTokens.set(jti, until);
      this.#onDurableChange();
    }
    this.#feed.announce({ type: 'token', jti, expiresAtMs: until });
  }

  async revokeTokensForKey(keyId: string, atMs: number): Promise<void> {
    assertKeyRevocation(keyId, atMs);
    if (keyRevocationExpiresAt(atMs) <= Date.now()) return;
    // Never moved back: announced with the time in force.
    const at = Math.max(this.#liveRevokedKey(keyId) ?? atMs, atMs);
    if (at !== this.#revokedKeys.get(keyId)) {
      this.#revokedKeys.set(keyId, at);
      this.#onDurableChange();
    }
    this.#feed.announce({ type: 'key', keyId, atMs: at });
  }

  async loadRevocations(): Promise<Revocations> {
    this.sweep(Date.now());
    return { tokens: new Map(this.#revokedTokens), keys: new Map(this.#revokedKeys) };
  }

  async isTokenRevoked(jti: string): Promise<boolean> {
    return this.#liveRevokedToken(jti) !== undefined;
  }

  async keyRevokedAt(keyId: string): Promise<number | undefined> {
    return this.#liveRevokedKey(keyId);
  }

  /** Events are delivered asynchronously (never inside the revoking call). The feed never goes down. */
  watchRevocations(listener: (event: RevocationEvent) => void): Promise<Unsubscribe> {
    return this.#feed.watch(listener);
  }

  /** Drops the tokens and revocations expired by `now`; the next write leaves them out anyway. */
  sweep(now: number): void {
    for (const [jti, record] of this.#tokens) {
      if (record.expiresAtMs <= now) this.#tokens.delete(jti);
    }
    for (const [jti, until] of this.#revokedTokens) {
      if (until <= now) this.#revokedTokens.delete(jti);
    }
    for (const [keyId, at] of this.#revokedKeys) {
      if (keyRevocationExpiresAt(at) <= now) this.#revokedKeys.delete(keyId);
    }
  }

  /** Takes up what the state file held (once, at start). */
  restore(state: PersistedRevocations): void {
    for (const record of state.tokens ?? [])
      this.#tokens.set(record.jti, toTokenRecord(record) as TokenRecord);
    for (const [jti, until] of Object.entries(state.revokedTokens ?? {})) this.#revokedTokens.set(jti, until);
    for (const [keyId, at] of Object.entries(state.revokedKeys ?? {})) this.#revokedKeys.set(keyId, at);
    this.sweep(Date.now());
  }

  /** What the state file keeps: the tokens and revocations still live at `now`. */
  persisted(now: number): PersistedRevocations {
    return {
      tokens: [...this.#tokens.values()].filter((record) => record.expiresAtMs > now),
      revokedTokens: Object.fromEntries([...this.#revokedTokens].filter(([, until]) => until > now)),
      revokedKeys: Object.fromEntries(
        [...this.#revokedKeys].filter(([, at]) => keyRevocationExpiresAt(at) > now),
      ),
    };
  }

  /** Stops announcing: watchers hear nothing more, not even what was announced before. */
  close(): void {
    this.#feed.close();
  }

  #liveRevokedToken(jti: string): number | undefined {
    const until = this.#revokedTokens.get(jti);
    if (until === undefined) return undefined;
    if (until > Date.now()) return until;
    this.#revokedTokens.delete(jti);
    return undefined;
  }

  #liveRevokedKey(keyId: string): number | undefined {
    const at = this.#revokedKeys.get(keyId);
    if (at === undefined) return undefined;
    if (keyRevocationExpiresAt(at) > Date.now()) return at;
    this.#revokedKeys.delete(keyId);
    return undefined;
  }
}
