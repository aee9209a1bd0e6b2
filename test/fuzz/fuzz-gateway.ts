/**
 * The service the fuzz properties run against: the real standalone service in-process, every
 * provider pointed at one fake upstream that answers 200 at once (so a 5xx can only be the
 * gateway's own), ephemeral tokens on, the response cache on, and a Connection with its own key.
 * It knows every secret of the deployment, and checks what properties all share: an answer within
 * the deadline, no 5xx, no secret in any header or body, and on errors the one envelope.
 */
import { randomBytes } from 'node:crypto';
import { type FakeAnyUpstream, startFakeAnyUpstream } from '../fakes/fake-any-upstream.ts';
import { createTestServiceAccount } from '../fakes/fake-vertex.ts';
import { graphql, MINT, type MintedToken } from '../helpers/graphql.ts';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.ts';

/** The gateway's body limit here: the oversized cases go past it. */
export const BODY_LIMIT_BYTES = 256 * 1024;

/** No answer (the whole body, streams included) within this is a hang. */
export const DEADLINE_MS = 10_000;

export const CONNECTION_SLUG = 'fuzz-conn';
export const ANTHROPIC_CONNECTION_SLUG = 'fuzz-claude';

export interface FuzzRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface FuzzAnswer {
  status: number;
  headers: Headers;
  text: string;
  elapsedMs: number;
}

export interface FuzzGateway {
  gateway: TestGateway;
  upstream: FakeAnyUpstream;
  signingKey: string;
  /** Every secret of the deployment, by name. */
  secrets: ReadonlyMap<string, string>;
  /** Mints a real ephemeral token from the workspace key, through the control plane. */
  mintToken(scopes: string[], ttlSeconds?: number): Promise<string>;
  send(request: FuzzRequest, base?: 'gateway' | 'control'): Promise<FuzzAnswer>;
  /** The name of a secret that appears in the answer (whole or a 12-character piece), if any. */
  leakedSecret(answer: FuzzAnswer): string | undefined;
  close(): Promise<void>;
}

const secret = (label: string) => `${label}-${randomBytes(24).toString('base64url')}`;

/**
 * Pieces of a secret long enough that a chance match is impossible, short enough to catch a quoted
 * part; and the secret in base64 (as a Secret's data holds it), whole and in pieces.
 */
function piecesOf(value: string): string[] {
  const pieces: string[] = [];
  for (const form of [
    value,
    Buffer.from(value).toString('base64'),
    Buffer.from(value).toString('base64url'),
  ]) {
    pieces.push(form);
    for (let start = 0; start + 12 <= form.length; start += 6) pieces.push(form.slice(start, start + 12));
  }
  return [...new Set(pieces)];
}

/** The base64 lines of a PEM private key: what would show if any part of it leaked. */
function pemLines(pem: string): string[] {
  return pem.split('\n').filter((line) => line.length >= 32 && !line.startsWith('-----'));
}

export async function startFuzzGateway(): Promise<FuzzGateway> {
  const upstream = await startFakeAnyUpstream();
  const signingKey = randomBytes(32).toString('hex');
  const encryptionKey = randomBytes(32).toString('hex');
  const platformKeys: Record<string, string> = {};
  const env: Record<string, string> = {
    SERVICE_TOKEN_SIGNING_KEY: signingKey,
    SERVICE_ENCRYPTION_KEY: encryptionKey,
    GATEWAY_CACHE: 'on',
    GATEWAY_BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
    UPSTREAM_HEADERS_TIMEOUT_MS: '5000',
    UPSTREAM_BODY_TIMEOUT_MS: '5000',
  };
  const openAiStyle = [
    'openai',
    'groq',
    'mistral',
    'deepseek',
    'together',
    'fireworks',
    'openrouter',
    'xai',
    'perplexity',
    'cerebras',
    'deepinfra',
  ];
  for (const name of openAiStyle) {
    const variable = name.toUpperCase();
    platformKeys[`${variable}_API_KEY`] = secret(`sk-${name}`);
    env[`${variable}_BASE_URL`] = `${upstream.url}/v1`;
  }
  platformKeys.ANTHROPIC_API_KEY = secret('sk-ant');
  env.ANTHROPIC_BASE_URL = upstream.url;
  platformKeys.GEMINI_API_KEY = secret('gem');
  env.GEMINI_BASE_URL = upstream.url;
  platformKeys.AWS_BEARER_TOKEN_BEDROCK = secret('bedrock');
  env.BEDROCK_BASE_URL = upstream.url;
  env.BEDROCK_MANTLE_BASE_URL = `${upstream.url}/v1`;
  const account = createTestServiceAccount({
    tokenUri: `${upstream.url}/token`,
    project: 'fuzz-proj',
    name: 'fuzz',
  });
  env.VERTEX_SERVICE_ACCOUNT_JSON = account.json;
  env.VERTEX_REGION = 'us-east5';
  env.VERTEX_BASE_URL = upstream.url;

  const gateway = await startTestGateway({ ...env, ...platformKeys });
  const { credentials } = gateway;
  const connectionKey = secret('sk-tenant-own');
  const anthropicConnectionKey = secret('sk-ant-tenant-own');
  const upsert = `mutation($slug: String!, $kind: String!, $key: String!, $url: String!, $model: String!) {
    upsertProviderCredential(providerName: $kind, slug: $slug, apiKey: $key, baseUrl: $url, defaultModel: $model) { slug ready }
  }`;
  for (const [slug, kind, key, url, model] of [
    [CONNECTION_SLUG, 'openai-compatible', connectionKey, `${upstream.url}/v1`, 'gpt-4o-mini'],
    [ANTHROPIC_CONNECTION_SLUG, 'anthropic', anthropicConnectionKey, upstream.url, 'claude-3-5-haiku-latest'],
  ] as const) {
    const created = await graphql(gateway.controlUrl, credentials.pat, upsert, {
      slug,
      kind,
      key,
      url,
      model,
    });
    if (created.errors !== undefined) throw new Error(`creating ${slug}: ${JSON.stringify(created.errors)}`);
  }
  // Policies the cache headers name: one with a stale window (a short TTL, so that entries go
  // stale during the run) and tenant-wide default tags, one semantic.
  const policy = `mutation($input: CachePolicyInput!) { upsertCachePolicy(input: $input) { name } }`;
  for (const input of [
    { name: 'default', ttlSeconds: 1, swrSeconds: 60, maxTtlSeconds: 3600, defaultTags: ['fuzz'] },
    { name: 'docs', workspaceId: credentials.workspaceId, ttlSeconds: 300, semantic: true },
  ]) {
    const created = await graphql(gateway.controlUrl, credentials.pat, policy, { input });
    if (created.errors !== undefined)
      throw new Error(`creating policy ${input.name}: ${JSON.stringify(created.errors)}`);
  }
  await gateway.running.settled();

  const secrets = new Map<string, string>([
    ...Object.entries(platformKeys),
    ['workspace API key', credentials.apiKey],
    ['PAT', credentials.pat],
    ['platform-admin PAT', credentials.adminPat],
    ['provisioning key', credentials.provisioningKey],
    ['token signing key', signingKey],
    ['encryption key', encryptionKey],
    ['Connection key', connectionKey],
    ['Anthropic Connection key', anthropicConnectionKey],
  ]);
  const pieces: [string, string][] = [];
  for (const [name, value] of secrets) for (const piece of piecesOf(value)) pieces.push([name, piece]);
  const privateKey = (JSON.parse(account.json) as { private_key: string }).private_key;
  for (const line of pemLines(privateKey)) pieces.push(['Vertex service-account key', line]);

  return {
    gateway,
    upstream,
    signingKey,
    secrets,
    async mintToken(scopes, ttlSeconds = 3600) {
      const minted = await graphql<{ mintEphemeralToken: MintedToken }>(
        gateway.controlUrl,
        credentials.pat,
        MINT,
        {
          input: { parentKeyId: credentials.apiKeyId, scopes, ttlSeconds },
        },
      );
      const token = minted.data?.mintEphemeralToken?.token;
      if (token === undefined) throw new Error(`minting a token: ${JSON.stringify(minted.errors)}`);
      return token;
    },
    async send(request, base = 'gateway') {
      const startedAt = performance.now();
      const url = `${base === 'gateway' ? gateway.url : gateway.controlUrl}${request.path}`;
      try {
        const response = await fetch(url, {
          method: request.method,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
          signal: AbortSignal.timeout(DEADLINE_MS),
        });
        const text = await response.text();
        return {
          status: response.status,
          headers: response.headers,
          text,
          elapsedMs: performance.now() - startedAt,
        };
      } catch (error) {
        if ((error as Error).name === 'TimeoutError')
          throw new Error(`no complete answer within ${DEADLINE_MS} ms (a hang): ${request.method} ${url}`);
        throw error;
      }
    },
    leakedSecret(answer) {
      const headerText = [...answer.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
      for (const [name, piece] of pieces) {
        if (answer.text.includes(piece) || headerText.includes(piece)) return name;
      }
      return undefined;
    },
    async close() {
      await gateway.stop();
      await upstream.stop();
    },
  };
}
