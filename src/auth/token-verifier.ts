/**
 * The gateway's verifier of ephemeral tokens: signature, expiry and ceiling with no store lookup;
 * then the denylist from a local mirror kept current by the runtime store's revocation feed. While
 * the feed is down (or not yet loaded) the mirror cannot be trusted and the store is asked directly;
 * while the store is away too, the mirror's last-known denylist answers.
 */
import { RevokedKeyError, TenantSuspendedError } from '../errors/gateway-error.ts';
import type { Logger } from '../observability/logger.ts';
import type { ConfigView } from '../stores/config-view.ts';
import { isUnavailability } from '../stores/store-breaker.ts';
import {
  KEY_REVOCATION_TTL_MS,
  type RevocationEvent,
  type RuntimeStore,
  type Unsubscribe,
} from '../stores/types.ts';
import type { EphemeralTokenVerifier } from './authenticate.ts';
import { verifyToken } from './ephemeral-token.ts';
import type { Principal } from './principal.ts';

/** A revocation event proper (not a feed state change). */
type Revocation = Extract<RevocationEvent, { type: 'token' | 'key' }>;

/** How often, at most, the mirror drops entries that can no longer match a live token. */
const PRUNE_INTERVAL_MS = 60_000;

export interface RevocationMirrorOptions {
  /** The clock used to prune expired entries; default Date.now. */
  now?: () => number;
}

export class RevocationMirror {
  readonly #runtime: RuntimeStore;
  readonly #log: Logger | undefined;
  readonly #now: () => number;
  /** jti → the token's expiry. */
  #tokens = new Map<string, number>();
  /** keyId → revoke-all time. */
  #keys = new Map<string, number>();
  #trusted = false;
  #unsubscribe: Unsubscribe | undefined;
  #reloading: Promise<void> | undefined;
  /** A `reset` came while a reload was in flight: its snapshot may predate what was missed. */
  #reloadAgain = false;
  /** Revocations that arrived while a snapshot was loading, applied on top of it. */
  #arrivedDuringLoad: Revocation[] | undefined;
  /** The feed dropped while a snapshot was loading: the snapshot cannot make the mirror trusted. */
  #droppedDuringLoad = false;
  #prunedAt: number;

  constructor(runtime: RuntimeStore, log?: Logger, options: RevocationMirrorOptions = {}) {
    this.#runtime = runtime;
    this.#log = log;
    this.#now = options.now ?? Date.now;
    this.#prunedAt = this.#now();
  }

  async start(): Promise<void> {
    this.#unsubscribe = await this.#runtime.watchRevocations((event) => this.#apply(event));
    await this.#reload();
  }

  /** Whether the mirror is current (feed up and loaded). */
  get trusted(): boolean {
    return this.#trusted;
  }

  /** How many revoked tokens and revoked keys the mirror holds. */
  get size(): { tokens: number; keys: number } {
    return { tokens: this.#tokens.size, keys: this.#keys.size };
  }

  #apply(event: RevocationEvent): void {
    switch (event.type) {
      case 'token':
      case 'key':
        this.#arrivedDuringLoad?.push(event);
        addRevocation(this.#tokens, this.#keys, event);
        this.#pruneNowAndThen();
        break;
      case 'down':
        this.#trusted = false;
        if (this.#reloading !== undefined) this.#droppedDuringLoad = true;
        this.#log?.warn('revocation feed down: checking the store directly until it is back');
        break;
      case 'reset':
        void this.#reload();
        break;
    }
  }

  /**
   * Loads the denylist. Events keep arriving while the snapshot loads and may be missing from it:
   * they are collected and applied on top of the snapshot rather than lost with the old maps.
   */
  #reload(): Promise<void> {
    if (this.#reloading !== undefined) {
      this.#reloadAgain = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      do {
        this.#reloadAgain = false;
        this.#droppedDuringLoad = false;
        const arrived: Revocation[] = [];
        this.#arrivedDuringLoad = arrived;
        try {
          const { tokens, keys } = await this.#runtime.loadRevocations();
          for (const event of arrived) addRevocation(tokens, keys, event);
          // A revocation is never undone: what this process knew stays, even when the store
          // comes back without it (a Redis restarted empty), until it expires.
          for (const [jti, expiresAtMs] of this.#tokens)
            addRevocation(tokens, keys, { type: 'token', jti, expiresAtMs });
          for (const [keyId, atMs] of this.#keys) addRevocation(tokens, keys, { type: 'key', keyId, atMs });
          this.#tokens = tokens;
          this.#keys = keys;
          this.#trusted = !this.#droppedDuringLoad;
        } catch (error) {
          this.#trusted = false;
          this.#log?.warn({ err: error }, 'loading the revocation list failed; checking the store directly');
        } finally {
          this.#arrivedDuringLoad = undefined;
        }
      } while (this.#reloadAgain);
    })().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  /**
   * Drops revocations that can no longer match a live token (a revoked token past its expiry, a
   * revoke-all older than the longest lifetime), at most once a PRUNE_INTERVAL_MS, so the maps
   * hold about what is live rather than everything seen since the process started.
   */
  #pruneNowAndThen(): void {
    const nowMs = this.#now();
    if (nowMs - this.#prunedAt < PRUNE_INTERVAL_MS) return;
    this.#prunedAt = nowMs;
    for (const [jti, expiresAtMs] of this.#tokens) if (expiresAtMs <= nowMs) this.#tokens.delete(jti);
    for (const [keyId, atMs] of this.#keys) {
      if (atMs + KEY_REVOCATION_TTL_MS <= nowMs) this.#keys.delete(keyId);
    }
  }

  /** Whether a token (by jti, parent key and issue time) is revoked. */
  async isRevoked(jti: string, keyId: string, issuedAtMs: number, nowMs: number): Promise<boolean> {
    if (this.#trusted) return this.#knownRevoked(jti, keyId, issuedAtMs, nowMs);
    try {
      const [tokenRevoked, keyAt] = await Promise.all([
        this.#runtime.isTokenRevoked(jti),
        this.#runtime.keyRevokedAt(keyId),
      ]);
      return (
        tokenRevoked ||
        (keyAt !== undefined && keyAt > issuedAtMs) ||
        this.#knownRevoked(jti, keyId, issuedAtMs, nowMs)
      );
    } catch (error) {
      // Degraded (DESIGN section 2): the store is away, the last-known denylist answers.
      if (isUnavailability(error)) return this.#knownRevoked(jti, keyId, issuedAtMs, nowMs);
      throw error;
    }
  }

  #knownRevoked(jti: string, keyId: string, issuedAtMs: number, nowMs: number): boolean {
    const tokenUntil = this.#tokens.get(jti);
    if (tokenUntil !== undefined && tokenUntil > nowMs) return true;
    const keyAt = this.#keys.get(keyId);
    return keyAt !== undefined && keyAt > issuedAtMs;
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
  }
}

/** Adds a revocation to the maps; a key's revoke-all time never moves back. */
function addRevocation(tokens: Map<string, number>, keys: Map<string, number>, event: Revocation): void {
  if (event.type === 'token') tokens.set(event.jti, Math.max(tokens.get(event.jti) ?? 0, event.expiresAtMs));
  else if ((keys.get(event.keyId) ?? 0) < event.atMs) keys.set(event.keyId, event.atMs);
}

export class TokenVerifier implements EphemeralTokenVerifier {
  readonly #keys: ReadonlyMap<string, string>;
  readonly #view: ConfigView;
  readonly #mirror: RevocationMirror;

  constructor(keys: readonly { id: string; secret: string }[], view: ConfigView, mirror: RevocationMirror) {
    this.#keys = new Map(keys.map((key) => [key.id, key.secret]));
    this.#view = view;
    this.#mirror = mirror;
  }

  async verify(token: string): Promise<Principal> {
    const nowMs = Date.now();
    const claims = verifyToken(token, this.#keys, nowMs);
    // Revoking (deleting) the parent key revokes its tokens; so does a key moved to another workspace.
    const parent = this.#view.apiKey(claims.pk);
    if (
      parent === undefined ||
      parent.tenantId !== claims.tenant ||
      parent.workspaceId !== claims.workspace
    ) {
      throw new RevokedKeyError('the key this token was minted from has been revoked');
    }
    if (await this.#mirror.isRevoked(claims.jti, claims.pk, claims.iat, nowMs)) throw new RevokedKeyError();
    if (this.#view.isSuspended(claims.tenant)) throw new TenantSuspendedError();
    const routes = new Set<string>();
    const models = new Set<string>();
    for (const scope of claims.scopes) {
      if (scope.startsWith('model:')) models.add(scope.slice('model:'.length));
      else routes.add(scope);
    }
    return {
      kind: 'ephemeral',
      tenantId: claims.tenant,
      workspaceId: claims.workspace,
      keyId: claims.pk,
      grants: new Set(parent.grants),
      token: {
        jti: claims.jti,
        routes,
        models,
        ...(claims.budget === undefined ? {} : { budgetMicros: claims.budget }),
        ...(claims.limits === undefined ? {} : { limits: claims.limits }),
        expiresAtMs: claims.exp,
      },
    };
  }
}
