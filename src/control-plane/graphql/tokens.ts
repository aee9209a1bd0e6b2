/**
 * Ephemeral tokens on the control plane: mint (every rule of the specification, each failure a
 * VALIDATION_ERROR naming the rule), revoke one, revoke all of a key's.
 */
import {
  encodeToken,
  MAX_TOKEN_TTL_SECONDS,
  newJti,
  TOKEN_SCOPES,
  type TokenClaims,
  type TokenRateLimits,
} from '../../auth/ephemeral-token.ts';
import { revokeTokensOfKey } from '../../auth/key-revocation.ts';
import type { ApiKeyRecord } from '../../stores/records.ts';
import { audited } from './audit.ts';
import { notFound, type ResolverContext, requirePermission, validationError } from './context.ts';

export const tokenTypeDefs = /* GraphQL */ `
  input RateLimitsInput {
    requestsPerMinute: Int
    tokensPerMinute: Int
  }

  input MintEphemeralTokenInput {
    "The workspace key the token derives from; its scopes cannot exceed this key's grants."
    parentKeyId: String!
    "At least one of chat, embeddings, messages, responses, model:<id>."
    scopes: [String!]!
    "Lifetime in seconds, 1 to 86400."
    ttlSeconds: Int!
    "Spend cap in USD micros for this token only."
    budgetMicros: Float
    rateLimits: RateLimitsInput
  }

  type EphemeralToken {
    token: String!
    jti: String!
    "ISO 8601."
    expiresAt: String!
    scopes: [String!]!
  }

  type Mutation {
    mintEphemeralToken(input: MintEphemeralTokenInput!): EphemeralToken!
    revokeEphemeralToken(jti: String!): Boolean!
    "Revokes every token of the key issued before this call; later ones are unaffected."
    revokeEphemeralTokensForKey(parentKeyId: String!): Boolean!
  }
`;

interface MintInput {
  parentKeyId?: string | null;
  scopes?: string[] | null;
  ttlSeconds?: number | null;
  budgetMicros?: number | null;
  rateLimits?: { requestsPerMinute?: number | null; tokensPerMinute?: number | null } | null;
}

/** The parent grant each route scope needs (`model:` scopes only narrow, so need none). */
const GRANT_FOR_SCOPE: Readonly<Record<string, string>> = {
  chat: 'chat:write',
  messages: 'chat:write',
  responses: 'chat:write',
  embeddings: 'embed',
};

function parentKeyOf(context: ResolverContext, keyId: string | null | undefined): ApiKeyRecord {
  if (!keyId) throw validationError('parentKeyId is required');
  const key = context.services.view.apiKey(keyId);
  // A revoked key is gone from the view; another tenant's key is reported the same way.
  if (key === undefined || key.tenantId !== context.tenantId) {
    throw validationError(`parentKeyId '${keyId}' is not an active key of your tenant`);
  }
  return key;
}

function checkScopes(scopes: string[] | null | undefined, parent: ApiKeyRecord): string[] {
  if (!scopes || scopes.length === 0) throw validationError('scopes must contain at least one scope');
  if (scopes.length > 32) throw validationError('scopes may contain at most 32 entries');
  const unique = [...new Set(scopes)];
  for (const scope of unique) {
    if (scope.startsWith('model:')) {
      if (scope.length === 'model:'.length || scope.length > 262) {
        throw validationError(`scope '${scope}' must name a model (model:<id>, at most 256 characters)`);
      }
      continue;
    }
    if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) {
      throw validationError(
        `unknown scope '${scope}': allowed are chat, embeddings, messages, responses and model:<id>`,
      );
    }
    const grant = GRANT_FOR_SCOPE[scope]!;
    if (!parent.grants.includes(grant as ApiKeyRecord['grants'][number])) {
      throw validationError(`scope '${scope}' needs the parent key to hold '${grant}', which it does not`);
    }
  }
  if (!unique.some((scope) => !scope.startsWith('model:'))) {
    throw validationError(
      'scopes must include a route scope (chat, embeddings, messages or responses); model: scopes only narrow',
    );
  }
  return unique;
}

function checkTtl(ttlSeconds: number | null | undefined): number {
  if (ttlSeconds === null || ttlSeconds === undefined) throw validationError('ttlSeconds is required');
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0)
    throw validationError('ttlSeconds must be a positive integer');
  if (ttlSeconds > MAX_TOKEN_TTL_SECONDS) {
    throw validationError(`ttlSeconds must be at most ${MAX_TOKEN_TTL_SECONDS} (24 hours)`);
  }
  return ttlSeconds;
}

function checkLimits(input: MintInput): { budget?: number; limits?: TokenRateLimits } {
  const result: { budget?: number; limits?: TokenRateLimits } = {};
  if (input.budgetMicros !== null && input.budgetMicros !== undefined) {
    if (!Number.isSafeInteger(input.budgetMicros) || input.budgetMicros <= 0) {
      throw validationError('budgetMicros must be a positive whole number of USD micros');
    }
    result.budget = input.budgetMicros;
  }
  const rateLimits = input.rateLimits;
  if (rateLimits) {
    const limits: TokenRateLimits = {};
    for (const name of ['requestsPerMinute', 'tokensPerMinute'] as const) {
      const value = rateLimits[name];
      if (value === null || value === undefined) continue;
      if (!Number.isInteger(value) || value <= 0)
        throw validationError(`rateLimits.${name} must be a positive integer`);
      limits[name] = value;
    }
    if (Object.keys(limits).length > 0) result.limits = limits;
  }
  return result;
}

async function mint(_parent: unknown, args: { input: MintInput }, context: ResolverContext) {
  requirePermission(context, 'tokens:mint');
  const signingKey = context.services.signingKey;
  if (signingKey === undefined) {
    throw validationError('ephemeral tokens are disabled on this deployment (no signing key is configured)');
  }
  const { input } = args;
  const parent = parentKeyOf(context, input.parentKeyId);
  const scopes = checkScopes(input.scopes, parent);
  const ttlSeconds = checkTtl(input.ttlSeconds);
  const { budget, limits } = checkLimits(input);
  const iat = Date.now();
  const claims: TokenClaims = {
    v: 1,
    jti: newJti(),
    pk: parent.id,
    tenant: parent.tenantId,
    workspace: parent.workspaceId,
    scopes,
    iat,
    exp: iat + ttlSeconds * 1000,
    ...(budget === undefined ? {} : { budget }),
    ...(limits === undefined ? {} : { limits }),
  };
  await context.services.runtime.recordToken({
    jti: claims.jti,
    tenantId: claims.tenant,
    workspaceId: claims.workspace,
    parentKeyId: claims.pk,
    issuedAtMs: iat,
    expiresAtMs: claims.exp,
  });
  return {
    token: encodeToken(claims, signingKey),
    jti: claims.jti,
    expiresAt: new Date(claims.exp).toISOString(),
    scopes,
  };
}

async function revokeOne(_parent: unknown, args: { jti: string }, context: ResolverContext) {
  requirePermission(context, 'tokens:mint');
  const record = await context.services.runtime.getToken(args.jti);
  // Expired tokens are forgotten; another tenant's token is reported the same way.
  if (record === undefined || record.tenantId !== context.tenantId)
    throw notFound(`no live token '${args.jti}'`);
  await context.services.runtime.revokeToken(record.jti, record.expiresAtMs);
  return true;
}

async function revokeForKey(_parent: unknown, args: { parentKeyId: string }, context: ResolverContext) {
  requirePermission(context, 'tokens:mint');
  const key = context.services.view.apiKey(args.parentKeyId);
  if (key === undefined || key.tenantId !== context.tenantId)
    throw notFound(`no key '${args.parentKeyId}' in your tenant`);
  await revokeTokensOfKey(context.services.runtime, key.id);
  return true;
}

export const tokenResolvers = {
  Mutation: {
    mintEphemeralToken: audited(
      'mintEphemeralToken',
      (args: { input: MintInput }) => args.input.parentKeyId ?? '',
      mint,
    ),
    revokeEphemeralToken: audited('revokeEphemeralToken', (args: { jti: string }) => args.jti, revokeOne),
    revokeEphemeralTokensForKey: audited(
      'revokeEphemeralTokensForKey',
      (args: { parentKeyId: string }) => args.parentKeyId,
      revokeForKey,
    ),
  },
};
