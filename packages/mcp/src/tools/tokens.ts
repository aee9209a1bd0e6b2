/**
 * Ephemeral tokens (`tt_ev_...`), short-lived credentials derived from a workspace API key (admin
 * SDK `mintEphemeralToken`, `revokeEphemeralToken`, `revokeEphemeralTokensForKey`; permission
 * `tokens:mint`). Limits are the service's to enforce: its refusal comes back with its code.
 */
import type { AdminClient } from '@inference-gateway/admin';
import { z } from 'zod';
import { formatUsd, microsAmount, microsOf, usdAmount } from '../amounts.ts';
import { EphemeralTokenRecord, pick } from '../records.ts';
import { CREATES, defineTool, REMOVES, type ToolDefinition } from '../tool.ts';

const parentKeyIdArgument = z
  .string()
  .describe('The id of the workspace API key (key_...) the tokens derive from; list_api_keys shows the ids.');

export function tokenTools(admin: AdminClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'mint_ephemeral_token',
      title: 'Mint an ephemeral token',
      description: [
        'Mints a short-lived token (tt_ev_...) that a client uses on the gateway like a workspace API key, limited by scopes, lifetime, an optional spend budget and rate limits.',
        "Scopes: at least one of chat, embeddings, messages, responses, plus model:<id> scopes to allow only those models; they cannot exceed the parent key's grants. ttlSeconds is 1 to 86400.",
        'The result contains the token itself: a new secret, returned once and never again (keep jti to revoke it).',
      ].join(' '),
      input: {
        parentKeyId: parentKeyIdArgument,
        scopes: z
          .array(z.string())
          .describe(
            'chat, embeddings, messages, responses, model:<id> (e.g. ["chat", "model:gpt-4o-mini"]).',
          ),
        ttlSeconds: z.number().int().describe('Lifetime in seconds, 1 to 86400.'),
        budgetUsd: usdAmount("Spend cap of this token (the rest of the workspace's traffic is unaffected)"),
        budgetMicros: microsAmount('Spend cap of this token'),
        requestsPerMinute: z.number().int().positive().optional().describe('Rate limit of this token.'),
        tokensPerMinute: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Rate limit of this token, in model tokens.'),
      },
      output: { token: z.object(EphemeralTokenRecord) },
      annotations: CREATES,
      async run(args, { signal }) {
        const budget = microsOf(args.budgetUsd, args.budgetMicros, ['budgetUsd', 'budgetMicros']);
        const rateLimits = {
          ...(args.requestsPerMinute === undefined ? {} : { requestsPerMinute: args.requestsPerMinute }),
          ...(args.tokensPerMinute === undefined ? {} : { tokensPerMinute: args.tokensPerMinute }),
        };
        const token = await admin.mintEphemeralToken(
          {
            parentKeyId: args.parentKeyId,
            scopes: args.scopes,
            ttlSeconds: args.ttlSeconds,
            ...(budget == null ? {} : { budgetMicros: budget }),
            ...(Object.keys(rateLimits).length === 0 ? {} : { rateLimits }),
          },
          { signal },
        );
        const limits = budget == null ? '' : `, budget ${formatUsd(budget)}`;
        return {
          summary: `Minted token ${token.jti} (scopes ${token.scopes.join(', ')}${limits}), valid until ${token.expiresAt}. The token is in the result, shown this once.`,
          result: { token: pick(EphemeralTokenRecord, token) },
        };
      },
    }),

    defineTool({
      name: 'revoke_ephemeral_token',
      title: 'Revoke an ephemeral token',
      description:
        'Revokes one ephemeral token by its jti (from mint_ephemeral_token); it is refused from the next request.',
      input: { jti: z.string().describe('The token id (jti) that mint_ephemeral_token returned.') },
      output: { revoked: z.boolean() },
      annotations: REMOVES,
      async run({ jti }, { signal }) {
        const revoked = await admin.revokeEphemeralToken(jti, { signal });
        return { summary: `Revoked token ${jti}.`, result: { revoked } };
      },
    }),

    defineTool({
      name: 'revoke_tokens_for_key',
      title: 'Revoke every ephemeral token of a key',
      description:
        'Revokes every ephemeral token minted from a workspace API key before this call (tokens minted later work). The key itself keeps working; revoke_api_key revokes it.',
      input: { parentKeyId: parentKeyIdArgument },
      output: { revoked: z.boolean() },
      // Not idempotent: a second call also revokes the tokens minted in between.
      annotations: { ...REMOVES, idempotentHint: false },
      async run({ parentKeyId }, { signal }) {
        const revoked = await admin.revokeEphemeralTokensForKey(parentKeyId, { signal });
        return {
          summary: `Revoked every token of key ${parentKeyId} issued until now.`,
          result: { revoked },
        };
      },
    }),
  ];
}
