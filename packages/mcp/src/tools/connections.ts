/**
 * Connections: a tenant's own provider credentials, routed as `@<slug>/<model>` (admin SDK
 * `listConnections`, `upsertConnection`, `testConnection`, `revokeConnection`,
 * `getProviderAvailability`; permission `credentials:manage`). Secrets go in, never out: results
 * carry `keyHint`.
 */
import {
  type AdminClient,
  type Connection,
  PROVIDER_CREDENTIAL_KINDS,
  providerResourceName,
} from '@inference-gateway/admin';
import { z } from 'zod';
import { clearableMicrosAmount, clearableUsdAmount, formatUsd, microsOf } from '../amounts.ts';
import { ConnectionRecord, ConnectionTestRecord, ProviderAvailabilityRecord, pick } from '../records.ts';
import { defineTool, READS, REMOVES, REPLACES, type ToolDefinition } from '../tool.ts';
import { workspaceIdArgument } from './arguments.ts';

/** Every spelling the control plane accepts: the enum's (`bedrockMantle`) and the resource's (`bedrock-mantle`). */
const PROVIDER_SPELLINGS = [
  ...new Set(PROVIDER_CREDENTIAL_KINDS.flatMap((kind) => [providerResourceName(kind), kind])),
] as [string, ...string[]];

/** A write-only value: given a string it is set, null clears it, left out it keeps its value. */
const secret = (description: string) =>
  z.string().nullable().optional().describe(`${description} Write-only.`);
const setting = (description: string) => z.string().nullable().optional().describe(description);

const slugArgument = z
  .string()
  .describe('The Connection\'s slug (its routing handle, as in "@<slug>/<model>"; a leading @ is accepted).');

function describeConnection(connection: Connection): string {
  const cap = connection.dailyCapMicros === null ? '' : `, daily cap ${formatUsd(connection.dailyCapMicros)}`;
  const state = connection.ready ? 'ready' : `not ready (${connection.status})`;
  return `@${connection.slug} (${connection.provider}, key ${connection.keyHint}${cap}, ${state})`;
}

export function connectionTools(admin: AdminClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'list_connections',
      title: 'List Connections',
      description:
        "Lists the tenant's Connections (its own provider credentials), each with its slug (routing handle: requests name models as @<slug>/<model>), provider, keyHint, extras, daily cap and spend in USD micros, and whether the gateway serves it (ready, status). With workspaceId, only those that workspace may use. Never returns a secret.",
      input: { workspaceId: z.string().optional().describe('Only the Connections this workspace may use.') },
      output: { connections: z.array(z.object(ConnectionRecord)) },
      annotations: READS,
      async run({ workspaceId }, { signal }) {
        const connections = await admin.listConnections(workspaceId === undefined ? {} : { workspaceId }, {
          signal,
        });
        return {
          summary:
            connections.length === 0
              ? 'No Connections.'
              : `${connections.length} Connection(s): ${connections.map(describeConnection).join('; ')}.`,
          result: { connections: connections.map((connection) => pick(ConnectionRecord, connection)) },
        };
      },
    }),

    defineTool({
      name: 'upsert_connection',
      title: 'Create or update a Connection',
      description: [
        'Creates or updates the Connection (a provider credential of the tenant) of a slug; it is served by the gateway when this returns, as @<slug>/<model>.',
        'Give the provider and the secrets of its kind: apiKey for openai, anthropic, gemini and openai-compatible (which also needs baseUrl); for bedrock and bedrock-mantle awsAccessKeyId + awsSecretAccessKey + awsRegion (awsSessionToken for temporary credentials) or a Bedrock API key as apiKey; for vertex gcpServiceAccountJson + vertexProject + vertexRegion.',
        'On an update, an argument left out keeps its value and null clears it. The daily spend cap is dailyCapUsd (a decimal string) or dailyCapMicros, not both; "0" stops the Connection, null removes the cap.',
        'Secrets are write-only: the result carries keyHint, never a secret.',
      ].join(' '),
      input: {
        provider: z
          .enum(PROVIDER_SPELLINGS)
          .describe(
            'The provider kind (bedrock-mantle and bedrockMantle are the same, so are openai-compatible and openaiCompatible).',
          ),
        slug: z
          .string()
          .optional()
          .describe(
            "The routing handle: 1-63 of a-z 0-9 -, unique in the tenant (a leading @ is dropped). Default: the provider's name. Upserting an existing slug updates that Connection.",
          ),
        label: z.string().optional().describe('Deprecated alias of slug (slug wins when both are given).'),
        apiKey: secret('The API key (openai, anthropic, gemini, openai-compatible), or a Bedrock API key.'),
        awsAccessKeyId: setting('bedrock, bedrock-mantle: the AWS access key id.'),
        awsSecretAccessKey: secret('bedrock, bedrock-mantle: the AWS secret access key.'),
        awsSessionToken: secret('bedrock, bedrock-mantle: the session token of temporary AWS credentials.'),
        awsRegion: setting('bedrock, bedrock-mantle: the AWS region (us-east-1).'),
        gcpServiceAccountJson: secret('vertex: the service account key file, as JSON text.'),
        vertexProject: setting('vertex: the Google Cloud project.'),
        vertexRegion: setting('vertex: the region (us-central1).'),
        baseUrl: setting(
          "The upstream's base URL: required for openai-compatible, optional elsewhere (a proxy).",
        ),
        workspaceId: setting('Only this workspace may use the Connection; null or absent: every workspace.'),
        defaultModel: setting('The model of @<slug> requests that name none.'),
        dailyCapUsd: clearableUsdAmount(
          'Spend cap per UTC day ("0" stops the Connection; null removes the cap)',
        ),
        dailyCapMicros: clearableMicrosAmount('Spend cap per UTC day'),
      },
      output: { connection: z.object(ConnectionRecord) },
      annotations: REPLACES,
      secretInputs: ['apiKey', 'awsSecretAccessKey', 'awsSessionToken', 'gcpServiceAccountJson'],
      async run({ dailyCapUsd, dailyCapMicros, ...fields }, { signal }) {
        const cap = microsOf(dailyCapUsd, dailyCapMicros, ['dailyCapUsd', 'dailyCapMicros']);
        const connection = await admin.upsertConnection(
          { ...fields, ...(cap === undefined ? {} : { dailyCapMicros: cap }) },
          { signal },
        );
        return {
          summary: `Saved Connection ${describeConnection(connection)}. Use it as model "@${connection.slug}/<model>".`,
          result: { connection: pick(ConnectionRecord, connection) },
        };
      },
    }),

    defineTool({
      name: 'test_connection',
      title: 'Test a Connection',
      description:
        "Probes the upstream provider with a Connection's credential (a models list or a signed identity call) and reports whether it was accepted (ok), the upstream's HTTP status, a message and the latency. A refused credential is a result with ok: false, not an error; an unknown slug is NOT_FOUND.",
      input: { slug: slugArgument },
      output: { test: z.object(ConnectionTestRecord) },
      annotations: { ...READS, idempotentHint: false, openWorldHint: true },
      async run({ slug }, { signal }) {
        const test = await admin.testConnection(slug, { signal });
        const name = `@${slug.replace(/^@/, '')}`;
        return {
          summary: test.ok
            ? `${name} works: the upstream answered ${test.status ?? 'OK'} in ${test.latencyMs} ms.`
            : `${name} failed: ${test.status === null ? 'no answer' : `status ${test.status}`}: ${test.message}`,
          result: { test: pick(ConnectionTestRecord, test) },
        };
      },
    }),

    defineTool({
      name: 'revoke_connection',
      title: 'Revoke a Connection',
      description:
        'Deletes the Connection of a slug and its secret; the gateway stops serving @<slug>/... when this returns. An unknown slug is NOT_FOUND.',
      input: { slug: slugArgument },
      output: { revoked: z.boolean() },
      annotations: REMOVES,
      async run({ slug }, { signal }) {
        const revoked = await admin.revokeConnection(slug, { signal });
        return {
          summary: `Revoked Connection @${slug.replace(/^@/, '')}.`,
          result: { revoked },
        };
      },
    }),

    defineTool({
      name: 'provider_availability',
      title: 'Provider availability',
      description:
        "For each provider: whether a workspace can use it (available), on the platform's own key (platform) and/or the tenant's Connections (connectionSlugs). Use it to pick a model prefix: provider/<model> for the platform's key, @<slug>/<model> for a Connection.",
      input: { workspaceId: workspaceIdArgument },
      output: { providers: z.array(z.object(ProviderAvailabilityRecord)) },
      annotations: READS,
      async run({ workspaceId }, { signal }) {
        const providers = await admin.getProviderAvailability(workspaceId, { signal });
        const lines = providers.map((entry) => {
          const via = [
            ...(entry.platform ? ['platform key'] : []),
            ...entry.connectionSlugs.map((slug) => `@${slug}`),
          ];
          return `${entry.provider}: ${entry.available ? `available (${via.join(', ')})` : 'unavailable'}`;
        });
        return {
          summary: `Providers for workspace ${workspaceId}: ${lines.join('; ')}.`,
          result: { providers: providers.map((entry) => pick(ProviderAvailabilityRecord, entry)) },
        };
      },
    }),
  ];
}
