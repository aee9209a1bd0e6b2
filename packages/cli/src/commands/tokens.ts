/**
 * `igw tokens`: ephemeral tokens (`tt_ev_...`) for untrusted holders, minted from a workspace key
 * with a PAT that has `tokens:mint`, and their revocation (one by jti, or every one of a key).
 */
import type { EphemeralToken, MintEphemeralTokenInput } from '@inference-gateway/admin';
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.ts';
import { UsageError } from '../errors.ts';
import { renderFields } from '../output.ts';
import { collect, parsePositiveInteger, parseUsdMicros } from '../parsers.ts';

interface MintOptions {
  parentKey: string;
  scope: string[];
  ttl: number;
  budgetUsd?: number;
  rpm?: number;
  tpm?: number;
}

/** The mint input of the flags; rate limits only when one is given. */
export function mintInput(options: MintOptions): MintEphemeralTokenInput {
  const rateLimits = {
    ...(options.rpm === undefined ? {} : { requestsPerMinute: options.rpm }),
    ...(options.tpm === undefined ? {} : { tokensPerMinute: options.tpm }),
  };
  return {
    parentKeyId: options.parentKey,
    scopes: options.scope,
    ttlSeconds: options.ttl,
    ...(options.budgetUsd === undefined ? {} : { budgetMicros: options.budgetUsd }),
    ...(Object.keys(rateLimits).length === 0 ? {} : { rateLimits }),
  };
}

function renderToken(token: EphemeralToken): string {
  return renderFields([
    ['token', token.token],
    ['jti', token.jti],
    ['expires at', token.expiresAt],
    ['scopes', token.scopes.join(', ')],
  ]);
}

export function registerTokenCommands(program: Command, context: CliContext): void {
  const tokens = program
    .command('tokens')
    .description('mint and revoke ephemeral tokens (tt_ev_...) derived from a workspace key')
    .addHelpText(
      'after',
      `
Examples:
  igw tokens mint --parent-key key_abc --scope chat --ttl 600
  igw tokens revoke 5f0c...`,
    );

  tokens
    .command('mint')
    .description('mint a short-lived, scoped token (printed once: it is the result)')
    .requiredOption('--parent-key <keyId>', 'the workspace API key id it derives from (key_...)')
    .addOption(
      new Option('--scope <scope>', 'chat, embeddings, messages, responses or model:<id>; repeat for more')
        .argParser(collect)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--ttl <seconds>', 'lifetime in seconds, 1 to 86400')
        .argParser(parsePositiveInteger)
        .makeOptionMandatory(),
    )
    .addOption(new Option('--budget-usd <usd>', "the token's own spend cap in USD").argParser(parseUsdMicros))
    .addOption(new Option('--rpm <n>', 'requests per minute').argParser(parsePositiveInteger))
    .addOption(new Option('--tpm <n>', 'tokens per minute').argParser(parsePositiveInteger))
    .addHelpText(
      'after',
      `
Examples:
  igw tokens mint --parent-key key_abc --scope chat --scope model:openai/gpt-4o-mini --ttl 900
  igw tokens mint --parent-key key_abc --scope chat --ttl 600 --budget-usd 0.05 --rpm 20 --json | jq -r .token`,
    )
    .action(async (options: MintOptions, command: Command) => {
      const admin = await context.adminClient(command);
      const minted = await admin.mintEphemeralToken(mintInput(options));
      context.print(command, minted, () => renderToken(minted));
    });

  tokens
    .command('revoke')
    .description('revoke one token by its jti, or every token of a workspace key issued until now')
    .argument('[jti]', 'the token to revoke')
    .option('--all-for-key <keyId>', 'revoke every token of this workspace key issued before this call')
    .addHelpText(
      'after',
      `
Examples:
  igw tokens revoke 5f0c...
  igw tokens revoke --all-for-key key_abc`,
    )
    .action(async (jti: string | undefined, options: { allForKey?: string }, command: Command) => {
      if ((jti === undefined) === (options.allForKey === undefined)) {
        throw new UsageError('give a jti or --all-for-key <keyId> (one of the two)');
      }
      const admin = await context.adminClient(command);
      if (options.allForKey !== undefined) {
        const revoked = await admin.revokeEphemeralTokensForKey(options.allForKey);
        context.print(
          command,
          { revoked, parentKeyId: options.allForKey },
          () => `Revoked every token of key '${options.allForKey}' issued until now.\n`,
        );
      } else {
        const revoked = await admin.revokeEphemeralToken(jti as string);
        context.print(command, { revoked, jti }, () => `Revoked token '${jti}'.\n`);
      }
    });
}
