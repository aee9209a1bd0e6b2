/**
 * The gateway's verifier of ephemeral tokens: signature, expiry and ceiling with no store lookup;
 * then the denylist from a local mirror kept current by the runtime store's revocation feed. While
 * the feed is down (or not yet loaded) the mirror cannot be trusted and the store is asked directly.
 */
import { RevokedKeyError } from '../errors/gateway-error.ts';
import type { Logger } from '../observability/logger.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { RevocationEvent, RuntimeStore, Unsubscribe } from '../stores/types.ts';
import type { EphemeralTokenVerifier } from './authenticate.ts';
import { verifyToken } from './ephemeral-token.ts';
import type { Principal } from './principal.ts';

export class RevocationMirror {
  readonly #runtime: RuntimeStore;
  readonly #log: Logger | undefined;
  #tokens = new Map<string, number>();
  #keys = new Map<string, number>();
  #trusted = false;
  #unsubscribe: Unsubscribe | undefined;
  #reloading: Promise<void> | undefined;

  constructor(runtime: RuntimeStore, log?: Logger) {
    this.#runtime = runtime;
    this.#log = log;
  }

  async start(): Promise<void> {
    this.#unsubscribe = await this.#runtime.watchRevocations((event) => this.#apply(event));
    await this.#reload();
  }

  /** Whether the mirror is current (feed up and loaded). */
  get trusted(): boolean {
    return this.#trusted;
  }

  #apply(event: RevocationEvent): void {
    switch (event.type) {
      case 'token':
        this.#tokens.set(event.jti, event.expiresAtMs);
        break;
      case 'key':
        if ((this.#keys.get(event.keyId) ?? 0) < event.atMs) this.#keys.set(event.keyId, event.atMs);
        break;
      case 'down':
        this.#trusted = false;
        this.#log?.warn('revocation feed down: checking the store directly until it is back');
        break;
      case 'reset':
        void this.#reload();
        break;
    }
  }

  #reload(): Promise<void> {
    this.#reloading ??= (async () => {
      try {
        const revocations = await this.#runtime.loadRevocations();
        this.#tokens = revocations.tokens;
        this.#keys = revocations.keys;
        this.#trusted = true;
      } catch (error) {
        this.#trusted = false;
        this.#log?.warn({ err: error }, 'loading the revocation list failed; checking the store directly');
      } finally {
        this.#reloading = undefined;
      }
    })();
    return this.#reloading;
  }

  /** Whether a token (by jti, parent key and issue time) is revoked. */
  async isRevoked(jti: string, keyId: string, issuedAtMs: number, nowMs: number): Promise<boolean> {
    if (this.#trusted) {
      const tokenUntil = this.#tokens.get(jti);
      if (tokenUntil !== undefined && tokenUntil > nowMs) return true;
      const keyAt = this.#keys.get(keyId);
      return keyAt !== undefined && keyAt > issuedAtMs;
    }
    const [tokenRevoked, keyAt] = await Promise.all([
      this.#runtime.isTokenRevoked(jti),
      this.#runtime.keyRevokedAt(keyId),
    ]);
    return tokenRevoked || (keyAt !== undefined && keyAt > issuedAtMs);
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
  }
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
