/**
 * OAuth2 access tokens from a Google service-account key (providers.md §5, "JWT bearer grant"):
 * an RS256-signed assertion (iss = client_email, scope cloud-platform, aud = token_uri, at most one
 * hour) exchanged at the key's own `token_uri` (so tests point it at a fake). Tokens are cached per
 * account until shortly before they expire, and concurrent requests share one exchange.
 */
import type { CryptoKey } from 'jose';

/** jose (about 2.6 MB of heap) is loaded by the first Vertex token exchange, not at start. */
const loadJose = () => import('jose');

import { InvalidRequestError, UpstreamError } from '../errors/gateway-error.ts';
import { type FormAnswer, postForm } from '../upstream/form-post.ts';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** Google refuses assertions valid for more than an hour. */
const ASSERTION_LIFETIME_SECONDS = 3600;
/** Refresh this long before expiry (a tenth of the lifetime for short-lived tokens). */
const REFRESH_MARGIN_SECONDS = 300;
/** Accounts whose tokens are kept; the oldest is dropped beyond. */
const MAX_CACHED_ACCOUNTS = 1000;

/** The fields of a service-account key file the grant needs. */
export interface ServiceAccount {
  clientEmail: string;
  /** PKCS#8 PEM. */
  privateKey: string;
  privateKeyId: string | undefined;
  projectId: string | undefined;
  tokenUri: string;
}

/**
 * Reads a service-account key file's JSON. A key pasted into an environment variable may carry
 * literal `\n` in its PEM; they are turned back into newlines. Throws InvalidRequestError.
 */
export function parseServiceAccount(json: string): ServiceAccount {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new InvalidRequestError('the Vertex credential is not a service-account JSON key');
  }
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const text = (field: string): string | undefined =>
    typeof record[field] === 'string' && record[field] !== '' ? (record[field] as string) : undefined;
  const clientEmail = text('client_email');
  const privateKey = text('private_key')?.replaceAll('\\n', '\n');
  if (clientEmail === undefined || privateKey === undefined)
    throw new InvalidRequestError('the Vertex service-account key lacks client_email or private_key');
  const tokenUri = text('token_uri') ?? GOOGLE_TOKEN_URI;
  try {
    new URL(tokenUri);
  } catch {
    throw new InvalidRequestError('the Vertex service-account key has an invalid token_uri');
  }
  return {
    clientEmail,
    privateKey,
    privateKeyId: text('private_key_id'),
    projectId: text('project_id'),
    tokenUri,
  };
}

/** POSTs a form-encoded body; the default is the gateway's credential-exchange transport. */
export type TokenTransport = (url: string, form: string) => Promise<FormAnswer>;

export interface GoogleAccessTokensOptions {
  transport?: TokenTransport;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
}

interface CachedToken {
  token: string;
  refreshAt: number;
}

/** How the token endpoint's refusals map (providers.md §5 "OAuth2 …" step 5, and §7). */
function tokenError(answer: FormAnswer): UpstreamError {
  let error = '';
  let description = '';
  try {
    const body = JSON.parse(answer.text) as { error?: unknown; error_description?: unknown };
    if (typeof body.error === 'string') error = body.error;
    if (typeof body.error_description === 'string') description = body.error_description;
  } catch {
    // not JSON: the status decides alone
  }
  const detail = [error, description].filter((part) => part !== '').join(': ') || `HTTP ${answer.statusCode}`;
  if (answer.statusCode === 429)
    return new UpstreamError(
      429,
      429,
      `Google's token endpoint is rate limiting: ${detail}`,
      'rate_limit_error',
      true,
    );
  if (answer.statusCode >= 500)
    return new UpstreamError(
      502,
      answer.statusCode,
      `Google's token endpoint failed: ${detail}`,
      'api_error',
      true,
    );
  // 400 invalid_grant (bad signature, clock skew, disabled account), 401 invalid_client (deleted key).
  return new UpstreamError(
    502,
    answer.statusCode,
    `the upstream provider (vertex) refused the service account's token grant: ${detail}`,
    'upstream_auth_error',
    false,
  );
}

/**
 * Access tokens per service account: cached until shortly before expiry, one exchange in flight per
 * account (concurrent callers await the same one), a failed exchange not cached.
 */
export class GoogleAccessTokens {
  readonly #transport: TokenTransport;
  readonly #now: () => number;
  readonly #tokens = new Map<string, CachedToken>();
  readonly #pending = new Map<string, Promise<string>>();
  readonly #keys = new Map<string, Promise<CryptoKey>>();

  constructor(options: GoogleAccessTokensOptions = {}) {
    this.#transport = options.transport ?? ((url, form) => postForm('vertex', url, form));
    this.#now = options.now ?? Date.now;
  }

  /** A valid access token for the account (from the cache, or a new exchange). */
  get(account: ServiceAccount): Promise<string> {
    const key = accountKey(account);
    const cached = this.#tokens.get(key);
    if (cached !== undefined && this.#now() < cached.refreshAt) return Promise.resolve(cached.token);
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      pending = this.#exchange(account, key).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /**
   * Forgets the account's token (after the upstream refused it: providers.md §5, "on upstream 401
   * drop the token, retry once"). With `token`, only when that is still the cached one, so a late
   * 401 for an old token does not throw away a newer token another request already fetched.
   */
  invalidate(account: ServiceAccount, token?: string): void {
    const key = accountKey(account);
    if (token !== undefined && this.#tokens.get(key)?.token !== token) return;
    this.#tokens.delete(key);
  }

  async #exchange(account: ServiceAccount, key: string): Promise<string> {
    // Expiry counts from when the exchange was asked for, to the millisecond: Google's clock starts
    // later, so the token is refreshed before Google stops taking it.
    const requestedAt = this.#now();
    const issuedAt = Math.floor(requestedAt / 1000);
    const { SignJWT } = await loadJose();
    const assertion = await new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
      .setProtectedHeader({
        alg: 'RS256',
        typ: 'JWT',
        ...(account.privateKeyId === undefined ? {} : { kid: account.privateKeyId }),
      })
      .setIssuer(account.clientEmail)
      .setAudience(account.tokenUri)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ASSERTION_LIFETIME_SECONDS)
      .sign(await this.#signingKey(account, key));
    const form = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString();
    const answer = await this.#transport(account.tokenUri, form);
    if (answer.statusCode !== 200) throw tokenError(answer);
    let body: { access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch {
      throw new UpstreamError(
        502,
        200,
        "Google's token endpoint answered with malformed JSON",
        'api_error',
        true,
      );
    }
    if (typeof body.access_token !== 'string' || body.access_token === '')
      throw new UpstreamError(
        502,
        200,
        "Google's token endpoint answered without an access_token",
        'api_error',
        true,
      );
    const lifetime =
      typeof body.expires_in === 'number' && body.expires_in > 0
        ? body.expires_in
        : ASSERTION_LIFETIME_SECONDS;
    const margin = Math.min(REFRESH_MARGIN_SECONDS, lifetime / 10);
    this.#remember(key, {
      token: body.access_token,
      refreshAt: requestedAt + (lifetime - margin) * 1000,
    });
    return body.access_token;
  }

  #signingKey(account: ServiceAccount, key: string): Promise<CryptoKey> {
    let signingKey = this.#keys.get(key);
    if (signingKey === undefined) {
      signingKey = loadJose()
        .then(({ importPKCS8 }) => importPKCS8(account.privateKey, 'RS256'))
        .catch((error: unknown) => {
          this.#keys.delete(key);
          throw new InvalidRequestError('the Vertex service-account private_key is not a PKCS#8 RSA key', {
            cause: error,
          });
        });
      this.#keys.set(key, signingKey);
      this.#trim(this.#keys);
    }
    return signingKey;
  }

  #remember(key: string, token: CachedToken): void {
    this.#tokens.delete(key);
    this.#tokens.set(key, token);
    this.#trim(this.#tokens);
  }

  #trim(map: Map<string, unknown>): void {
    while (map.size > MAX_CACHED_ACCOUNTS) map.delete(map.keys().next().value as string);
  }
}

/** A rotated key has a new private_key_id; a key pointed at another token endpoint is another account. */
function accountKey(account: ServiceAccount): string {
  return `${account.clientEmail}\n${account.privateKeyId ?? ''}\n${account.tokenUri}`;
}
