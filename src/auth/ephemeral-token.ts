/**
 * Ephemeral tokens: `tt_ev_<kid>.<claims>.<signature>`, where claims is base64url JSON and the
 * signature is HMAC-SHA256 over `tt_ev_<kid>.<claims>` with the key `kid` names. The signature is
 * checked (in constant time) before the claims are even parsed; then every claim is checked for
 * type and range, the expiry, and the 24-hour ceiling again, whatever the claims say.
 */

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidKeyError } from '../errors/gateway-error.ts';
import { EPHEMERAL_TOKEN_PREFIX } from './credential-prefixes.ts';

export const TOKEN_PREFIX = EPHEMERAL_TOKEN_PREFIX;
/** The longest a token may live, enforced at mint and again at every verification. */
export const MAX_TOKEN_TTL_SECONDS = 86_400;
/** Clock skew tolerated between the minting and the verifying process. */
const CLOCK_SKEW_MS = 60_000;
const MAX_TOKEN_TTL_MS = MAX_TOKEN_TTL_SECONDS * 1000;
/** Nothing longer is looked at (a token with every field at its limit is well under this). */
export const MAX_TOKEN_LENGTH = 4096;

export const TOKEN_SCOPES = ['chat', 'embeddings', 'messages', 'responses'] as const;
export type RouteScope = (typeof TOKEN_SCOPES)[number];

export interface TokenRateLimits {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

/** The claims a token carries. Times are Unix milliseconds (revoke-all compares issue times exactly). */
export interface TokenClaims {
  v: 1;
  jti: string;
  /** Parent workspace key id. */
  pk: string;
  tenant: string;
  workspace: string;
  scopes: string[];
  iat: number;
  exp: number;
  /** Spend cap in USD micros, for this token only. */
  budget?: number;
  limits?: TokenRateLimits;
}

export interface SigningKey {
  id: string;
  secret: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const IDENTIFIER = /^[A-Za-z0-9_.:/-]{1,256}$/;
const MODEL_SCOPE = /^model:.{1,256}$/s;

function sign(secret: string, signedPart: string): Buffer {
  return createHmac('sha256', secret).update(signedPart).digest();
}

export function newJti(): string {
  return `jti_${randomBytes(16).toString('base64url')}`;
}

export function encodeToken(claims: TokenClaims, key: SigningKey): string {
  const signedPart = `${TOKEN_PREFIX}${key.id}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${signedPart}.${sign(key.secret, signedPart).toString('base64url')}`;
}

function isCount(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= max;
}

/** Strict shape check of decoded claims; anything off is an invalid token. */
function checkClaims(value: unknown): TokenClaims {
  const invalid = () => new InvalidKeyError('malformed token');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid();
  const claims = value as Record<string, unknown>;
  if (claims.v !== 1) throw invalid();
  for (const field of ['jti', 'pk', 'tenant', 'workspace'] as const) {
    if (typeof claims[field] !== 'string' || !IDENTIFIER.test(claims[field] as string)) throw invalid();
  }
  const scopes = claims.scopes;
  if (!Array.isArray(scopes) || scopes.length === 0 || scopes.length > 64) throw invalid();
  for (const scope of scopes) {
    if (
      typeof scope !== 'string' ||
      !((TOKEN_SCOPES as readonly string[]).includes(scope) || MODEL_SCOPE.test(scope))
    ) {
      throw invalid();
    }
  }
  if (!isCount(claims.iat, 2 ** 50) || !isCount(claims.exp, 2 ** 50)) throw invalid();
  if (claims.budget !== undefined && !isCount(claims.budget, Number.MAX_SAFE_INTEGER)) throw invalid();
  if (claims.limits !== undefined) {
    const limits = claims.limits as Record<string, unknown> | null;
    if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) throw invalid();
    for (const [name, limit] of Object.entries(limits)) {
      if (!['requestsPerMinute', 'tokensPerMinute'].includes(name) || !isCount(limit, 1e12)) throw invalid();
    }
  }
  return claims as unknown as TokenClaims;
}

/**
 * Verifies signature, shape, expiry and the 24-hour ceiling. Every failure is the same
 * InvalidKeyError: a caller learns nothing about which check failed.
 */
export function verifyToken(
  token: string,
  keys: ReadonlyMap<string, string>,
  nowMs = Date.now(),
): TokenClaims {
  if (keys.size === 0) throw new InvalidKeyError('ephemeral tokens are not enabled on this deployment');
  if (token.length > MAX_TOKEN_LENGTH || !token.startsWith(TOKEN_PREFIX)) throw new InvalidKeyError();
  const body = token.slice(TOKEN_PREFIX.length);
  const firstDot = body.indexOf('.');
  const lastDot = body.lastIndexOf('.');
  if (firstDot <= 0 || lastDot === firstDot) throw new InvalidKeyError();
  const keyId = body.slice(0, firstDot);
  const payload = body.slice(firstDot + 1, lastDot);
  const signature = body.slice(lastDot + 1);
  if (!KEY_ID.test(keyId) || !BASE64URL.test(payload) || !BASE64URL.test(signature))
    throw new InvalidKeyError();
  const secret = keys.get(keyId);
  if (secret === undefined) throw new InvalidKeyError();
  const given = Buffer.from(signature, 'base64url');
  const expected = sign(secret, `${TOKEN_PREFIX}${keyId}.${payload}`);
  // Re-encoding must give back the same text: rejects non-canonical base64url spellings.
  if (
    given.length !== expected.length ||
    given.toString('base64url') !== signature ||
    !timingSafeEqual(given, expected)
  ) {
    throw new InvalidKeyError();
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidKeyError('malformed token');
  }
  const claims = checkClaims(decoded);
  if (claims.exp <= nowMs) throw new InvalidKeyError('token expired');
  if (claims.iat > nowMs + CLOCK_SKEW_MS) throw new InvalidKeyError('token issued in the future');
  // The ceiling holds whatever the claims say: neither the stated lifetime nor the age may pass a day.
  if (claims.exp - claims.iat > MAX_TOKEN_TTL_MS || nowMs - claims.iat > MAX_TOKEN_TTL_MS) {
    throw new InvalidKeyError('token lifetime exceeds 24 hours');
  }
  return claims;
}
