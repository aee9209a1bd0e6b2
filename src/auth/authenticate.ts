/**
 * Credential -> principal on the gateway. Workspace keys are looked up by hash in the process's
 * config view (no store round trip); ephemeral tokens are verified by the verifier given (none
 * configured: every `tt_ev_` is invalid).
 */
import { InvalidKeyError, ScopeDeniedError, TenantSuspendedError } from '../errors/gateway-error.ts';
import type { Operation } from '../shapes/api.ts';
import { ConfigUnavailableError, type ConfigView } from '../stores/config-view.ts';
import { hashCredential } from './credential-hash.ts';
import { API_KEY_PREFIX, EPHEMERAL_TOKEN_PREFIX } from './credential-prefixes.ts';
import { GRANT_FOR_OPERATION, type Principal, SCOPE_FOR_OPERATION } from './principal.ts';

/** Verifies `tt_ev_` tokens (ephemeral-token module). */
export interface EphemeralTokenVerifier {
  verify(token: string): Promise<Principal> | Principal;
}

/** Longest credential looked at; anything longer is refused before hashing. */
const MAX_CREDENTIAL_LENGTH = 8192;

/** The credential from `Authorization: Bearer` or, for Anthropic SDKs, `x-api-key`. */
export function extractCredential(
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const space = authorization.indexOf(' ');
    if (space > 0 && authorization.slice(0, space).toLowerCase() === 'bearer') {
      const value = authorization.slice(space + 1).trim();
      return value || undefined;
    }
    return undefined;
  }
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.trim() ? apiKey.trim() : undefined;
}

export class Authenticator {
  readonly #view: ConfigView;
  readonly #ephemeral: EphemeralTokenVerifier | undefined;
  /** Grants sets shared per key record, so the hot path allocates nothing. */
  readonly #grantCache = new WeakMap<object, ReadonlySet<string>>();

  constructor(view: ConfigView, ephemeral?: EphemeralTokenVerifier) {
    this.#view = view;
    this.#ephemeral = ephemeral;
  }

  async authenticate(credential: string | undefined): Promise<Principal> {
    return this.authenticateNow(credential);
  }

  /**
   * `authenticate` without a promise where none is needed: a workspace key (a lookup in the config
   * view) is answered, or refused by a throw, at once; only a token's verification may be a promise.
   */
  authenticateNow(credential: string | undefined): Principal | Promise<Principal> {
    // No configuration yet (a fresh process on a store being rebuilt): unknown is not invalid.
    if (!this.#view.populated) throw new ConfigUnavailableError();
    if (credential === undefined)
      throw new InvalidKeyError('missing credential: send Authorization: Bearer <key>');
    if (credential.length > MAX_CREDENTIAL_LENGTH) throw new InvalidKeyError();
    if (credential.startsWith(API_KEY_PREFIX)) return this.#authenticateApiKey(credential);
    if (credential.startsWith(EPHEMERAL_TOKEN_PREFIX)) {
      if (this.#ephemeral === undefined)
        throw new InvalidKeyError('ephemeral tokens are not enabled on this deployment');
      return this.#ephemeral.verify(credential);
    }
    throw new InvalidKeyError();
  }

  #authenticateApiKey(credential: string): Principal {
    const record = this.#view.apiKeyByHash(hashCredential(credential));
    if (record === undefined || this.#view.tenant(record.tenantId) === undefined) throw new InvalidKeyError();
    if (this.#view.isSuspended(record.tenantId)) throw new TenantSuspendedError();
    let grants = this.#grantCache.get(record);
    if (grants === undefined) {
      grants = new Set(record.grants);
      this.#grantCache.set(record, grants);
    }
    return {
      kind: 'api-key',
      tenantId: record.tenantId,
      workspaceId: record.workspaceId,
      keyId: record.id,
      grants,
    };
  }
}

/** A workspace key must hold the operation's grant; a token must hold the route's scope. */
export function authorizeRoute(principal: Principal, operation: Operation): void {
  const grant = GRANT_FOR_OPERATION[operation];
  if (!principal.grants.has(grant)) {
    throw new ScopeDeniedError(`this key lacks the '${grant}' grant needed for this route`);
  }
  const token = principal.token;
  if (token === undefined) return;
  const scope = SCOPE_FOR_OPERATION[operation];
  if (!token.routes.has(scope)) throw new ScopeDeniedError(`this token's scopes do not include '${scope}'`);
}

/**
 * As authorizeRoute, and a token with `model:` scopes must name the requested model exactly.
 */
export function authorizeOperation(principal: Principal, operation: Operation, model: string): void {
  authorizeRoute(principal, operation);
  const token = principal.token;
  if (token === undefined) return;
  if (token.models.size > 0 && !token.models.has(model)) {
    throw new ScopeDeniedError(`this token is not allowed to use model '${model}'`);
  }
}
