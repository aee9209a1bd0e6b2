/**
 * Connections managed through the control plane: upsert (works on the gateway when it returns),
 * list, availability, upstream probes against fakes, revocation, friendly kind spellings, and no
 * secret in any result or audit entry.
 */
import { generateKeyPairSync } from 'node:crypto';
import { importSPKI, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { credentialSecret } from '../../../src/resources/credential-secret.ts';
import { tenantNamespace } from '../../../src/resources/types.ts';
import { startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeGemini } from '../../fakes/fake-gemini.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import { FakeServer, sendJson } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const PLATFORM_KEY = 'sk-platform-key-0123456789';
const TENANT_KEY = 'sk-tenant-first-key-0123456789';
const ROTATED_KEY = 'sk-tenant-rotated-key-9876543210';
const ANTHROPIC_KEY = 'sk-ant-tenant-key-0123456789';
const GEMINI_KEY = 'AIza-tenant-gemini-key-0123456789';
const MANTLE_KEY = 'bedrock-api-key-0123456789abcdef';

let platform: FakeServer;
let tenantUpstream: FakeServer;
let anthropic: FakeServer;
let gemini: FakeServer;
let tokenEndpoint: FakeServer;
let gateway: TestGateway;
let limitedPat: string;
/** Every secret this suite hands to the control plane: none may ever come back. */
const secrets: string[] = [TENANT_KEY, ROTATED_KEY, ANTHROPIC_KEY, GEMINI_KEY, MANTLE_KEY];

const { publicKey, privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
secrets.push(privateKey);

beforeAll(async () => {
  platform = await startFakeOpenAi();
  tenantUpstream = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  gemini = await startFakeGemini(GEMINI_KEY);
  // The Gemini models list, refused (like Gemini does) with 400 API_KEY_INVALID for a wrong key.
  gemini.route('GET', '/v1beta/models', (request, response) => {
    if (request.headers['x-goog-api-key'] !== GEMINI_KEY) {
      sendJson(response, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
        },
      });
      return;
    }
    sendJson(response, 200, {
      models: [{ name: 'models/gemini-2.5-flash' }, { name: 'models/gemini-2.5-pro' }],
    });
  });
  // A Google OAuth2 token endpoint that verifies the JWT-bearer assertion.
  tokenEndpoint = await new FakeServer()
    .route('POST', '/token', async (request, response) => {
      const form = new URLSearchParams(request.rawBody);
      try {
        await jwtVerify(form.get('assertion') ?? '', await importSPKI(publicKey, 'RS256'), {
          issuer: 'probe@proj-1.iam.gserviceaccount.com',
        });
      } catch {
        sendJson(response, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
        return;
      }
      sendJson(response, 200, { access_token: 'ya29.fake', expires_in: 3599, token_type: 'Bearer' });
    })
    .start();
  gateway = await startTestGateway({
    OPENAI_API_KEY: PLATFORM_KEY,
    OPENAI_BASE_URL: `${platform.url}/v1`,
    // The platform's AWS keys: bedrock/ is available on the platform without a Bedrock API key.
    AWS_ACCESS_KEY_ID: 'AKIAPLATFORM01234567',
    AWS_SECRET_ACCESS_KEY: 'platform-aws-secret-0123456789abcdef',
  });
  const pat = generateCredential('tt_pat_');
  limitedPat = pat.plaintext;
  await gateway.running.resources.apply(
    credentialSecret(gateway.credentials.tenantId, 'pat', pat, {
      permissions: 'keys:manage',
      admin: 'false',
    }),
  );
  await gateway.running.settled();
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([platform, tenantUpstream, anthropic, gemini, tokenEndpoint].map((fake) => fake?.stop()));
});

const CREDENTIAL_FIELDS = `id slug label kind provider keyHint workspaceId baseUrl awsRegion vertexProject
  vertexRegion defaultModel dailyCapMicros spentTodayMicros createdAt ready status`;

const UPSERT = `mutation Upsert(
  $provider: ProviderCredentialKind, $providerName: String, $slug: String, $label: String, $apiKey: String,
  $awsAccessKeyId: String, $awsSecretAccessKey: String, $awsRegion: String, $gcpServiceAccountJson: String,
  $vertexProject: String, $vertexRegion: String, $baseUrl: String, $workspaceId: String,
  $defaultModel: String, $dailyCapMicros: Float
) {
  upsertProviderCredential(
    provider: $provider, providerName: $providerName, slug: $slug, label: $label, apiKey: $apiKey,
    awsAccessKeyId: $awsAccessKeyId, awsSecretAccessKey: $awsSecretAccessKey, awsRegion: $awsRegion,
    gcpServiceAccountJson: $gcpServiceAccountJson, vertexProject: $vertexProject, vertexRegion: $vertexRegion,
    baseUrl: $baseUrl, workspaceId: $workspaceId, defaultModel: $defaultModel, dailyCapMicros: $dailyCapMicros
  ) { ${CREDENTIAL_FIELDS} }
}`;

interface Credential {
  id: string;
  slug: string;
  label: string;
  kind: string;
  provider: string;
  keyHint: string;
  workspaceId: string | null;
  baseUrl: string | null;
  defaultModel: string | null;
  dailyCapMicros: number | null;
  spentTodayMicros: number | null;
  createdAt: string | null;
  ready: boolean;
  status: string;
}

interface ProbeResult {
  ok: boolean;
  status: number | null;
  message: string;
  latencyMs: number;
}

function expectNoSecret(value: unknown): void {
  const text = JSON.stringify(value);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

async function upsert(variables: Record<string, unknown>, pat = gateway.credentials.pat) {
  const result = await graphql<{ upsertProviderCredential: Credential }>(
    gateway.controlUrl,
    pat,
    UPSERT,
    variables,
  );
  expectNoSecret(result);
  return result;
}

async function upserted(variables: Record<string, unknown>): Promise<Credential> {
  const result = await upsert(variables);
  expect(result.errors).toBeUndefined();
  return result.data!.upsertProviderCredential;
}

async function probe(slug: string): Promise<ProbeResult> {
  const result = await graphql<{ testProviderCredential: ProbeResult }>(
    gateway.controlUrl,
    gateway.credentials.pat,
    `mutation($slug: String!) { testProviderCredential(slug: $slug) { ok status message latencyMs } }`,
    { slug },
  );
  expectNoSecret(result);
  expect(result.errors).toBeUndefined();
  return result.data!.testProviderCredential;
}

async function list(workspaceId?: string): Promise<Credential[]> {
  const result = await graphql<{ providerCredentials: Credential[] }>(
    gateway.controlUrl,
    gateway.credentials.pat,
    `query($workspaceId: String) { providerCredentials(workspaceId: $workspaceId) { ${CREDENTIAL_FIELDS} } }`,
    workspaceId === undefined ? {} : { workspaceId },
  );
  expectNoSecret(result);
  expect(result.errors).toBeUndefined();
  return result.data!.providerCredentials;
}

const chat = (model: string, headers: Record<string, string> = {}) =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { model, messages: [{ role: 'user', content: 'Hi' }] },
    gateway.credentials.apiKey,
    headers,
  );

describe('upsertProviderCredential', () => {
  it('creates a Connection that serves @slug/ with the tenant key as soon as the call returns', async () => {
    const credential = await upserted({
      providerName: 'openai-compatible',
      slug: 'my-llm',
      label: 'ignored-because-slug-wins',
      apiKey: TENANT_KEY,
      baseUrl: `${tenantUpstream.url}/v1`,
      defaultModel: 'gpt-4o',
    });
    expect(credential).toMatchObject({
      id: `${gateway.credentials.tenantId}/my-llm`,
      slug: 'my-llm',
      label: 'my-llm',
      kind: 'openaiCompatible',
      provider: 'openai-compatible',
      keyHint: 'sk-…6789',
      workspaceId: null,
      baseUrl: `${tenantUpstream.url}/v1`,
      defaultModel: 'gpt-4o',
      dailyCapMicros: null,
      spentTodayMicros: null,
      ready: true,
      status: 'Ready',
    });
    expect(credential.keyHint).not.toBe(TENANT_KEY);
    expect(Date.parse(credential.createdAt ?? '')).not.toBeNaN();

    const platformBefore = platform.requests.length;
    const response = await chat('@my-llm/gpt-4o');
    expect(response.status).toBe(200);
    expect(tenantUpstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TENANT_KEY}`);
    expect(platform.requests.length).toBe(platformBefore);
    expect(response.headers.get('x-service-byok')).toBe('true');
    expect(response.headers.get('x-service-credential-id')).toBe(credential.id);
    expect(response.headers.get('x-service-credential-slug')).toBe('my-llm');
    expect(response.headers.get('x-service-credential-label')).toBe('my-llm');
    expect(response.headers.get('x-service-balance-charged-micros')).toBe('0');
  });

  it('writes the Connection and a Secret named after the slug in the tenant namespace', async () => {
    const namespace = tenantNamespace(gateway.credentials.tenantId);
    const connection = await gateway.running.resources.get('Connection', 'my-llm', namespace);
    expect(connection?.spec).toMatchObject({ provider: 'openai-compatible', slug: 'my-llm' });
    const secret = await gateway.running.resources.get('Secret', connection!.spec.secretRef.name, namespace);
    expect(secret?.metadata.name).toBe('my-llm-credential');
    expect(Buffer.from(secret!.data!.apiKey!, 'base64').toString('utf8')).toBe(TENANT_KEY);
  });

  it('on update keeps the secret it was not given, and a new key is in force when the call returns', async () => {
    const capped = await upserted({
      provider: 'openaiCompatible',
      slug: 'my-llm',
      dailyCapMicros: 5_000_000,
    });
    expect(capped).toMatchObject({
      dailyCapMicros: 5_000_000,
      keyHint: 'sk-…6789',
      baseUrl: `${tenantUpstream.url}/v1`,
    });
    expect((await chat('@my-llm/gpt-4o')).status).toBe(200);
    expect(tenantUpstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TENANT_KEY}`);

    const rotated = await upserted({ provider: 'openaiCompatible', slug: 'my-llm', apiKey: ROTATED_KEY });
    expect(rotated.keyHint).toBe('sk-…3210');
    expect(rotated.dailyCapMicros).toBe(5_000_000);
    expect((await chat('@my-llm/gpt-4o')).status).toBe(200);
    expect(tenantUpstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${ROTATED_KEY}`);
    // Spend counted against the cap (gpt-4o at list prices: 12 input and 8 output tokens).
    expect((await list()).find((entry) => entry.slug === 'my-llm')?.spentTodayMicros).toBe(220);

    // An explicit null clears a field.
    const uncapped = await upserted({ provider: 'openaiCompatible', slug: 'my-llm', dailyCapMicros: null });
    expect(uncapped.dailyCapMicros).toBeNull();
  });

  it('accepts the friendly spellings wherever a kind is given as a string', async () => {
    for (const [providerName, slug] of [
      ['bedrock-mantle', 'mantle-a'],
      ['bedrockMantle', 'mantle-b'],
      ['BEDROCK_MANTLE', 'mantle-c'],
    ]) {
      const credential = await upserted({
        providerName,
        slug,
        apiKey: MANTLE_KEY,
        baseUrl: `${tenantUpstream.url}/v1`,
        awsRegion: 'eu-west-1',
      });
      expect(credential).toMatchObject({
        kind: 'bedrockMantle',
        provider: 'bedrock-mantle',
        slug,
        ready: true,
      });
    }
    const literal = await graphql<{ upsertProviderCredential: Credential }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      `mutation { upsertProviderCredential(provider: bedrockMantle, slug: "mantle-a", awsRegion: "eu-west-2") { kind provider awsRegion } }`,
    );
    expect(literal.data?.upsertProviderCredential).toEqual({
      kind: 'bedrockMantle',
      provider: 'bedrock-mantle',
      awsRegion: 'eu-west-2',
    });
    const compatible = await upserted({
      providerName: 'openai_compatible',
      slug: 'compat',
      baseUrl: `${tenantUpstream.url}/v1`,
    });
    expect(compatible).toMatchObject({
      kind: 'openaiCompatible',
      provider: 'openai-compatible',
      keyHint: '',
    });
  });

  it('takes the slug from label when no slug is given, and from the provider when neither is', async () => {
    const byLabel = await upserted({
      provider: 'anthropic',
      label: 'claude',
      apiKey: ANTHROPIC_KEY,
      baseUrl: anthropic.url,
    });
    expect(byLabel).toMatchObject({ slug: 'claude', label: 'claude', kind: 'anthropic' });
    const byProvider = await upserted({ provider: 'gemini', apiKey: GEMINI_KEY, baseUrl: gemini.url });
    expect(byProvider).toMatchObject({ slug: 'gemini', kind: 'gemini', keyHint: '…6789' });

    // The Anthropic Connection serves chat completions with the tenant's own key.
    const response = await chat('@claude/claude-3-5-sonnet-20241022');
    expect(response.status).toBe(200);
    expect(anthropic.requests.at(-1)!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(response.headers.get('x-service-credential-slug')).toBe('claude');
  });

  it.each([
    [
      'an invalid slug',
      { provider: 'openai', slug: 'Not A Slug', apiKey: TENANT_KEY },
      'VALIDATION_ERROR',
      /slug must be/,
    ],
    [
      'no provider',
      { slug: 'x', apiKey: TENANT_KEY },
      'VALIDATION_ERROR',
      /provider \(or providerName\) is required/,
    ],
    [
      'an unknown provider name',
      { providerName: 'nope', apiKey: TENANT_KEY },
      'VALIDATION_ERROR',
      /unknown provider 'nope'/,
    ],
    [
      'provider and providerName that disagree',
      { provider: 'openai', providerName: 'gemini', apiKey: TENANT_KEY },
      'VALIDATION_ERROR',
      /disagree/,
    ],
    ['a missing key', { provider: 'openai', slug: 'keyless' }, 'VALIDATION_ERROR', /needs: apiKey/],
    [
      'AWS keys without the secret half',
      { provider: 'bedrock', slug: 'aws', awsAccessKeyId: 'AKIAEXAMPLE0123456789' },
      'VALIDATION_ERROR',
      /awsAccessKeyId and awsSecretAccessKey/,
    ],
    [
      'a service account that is not one',
      {
        provider: 'vertex',
        slug: 'vx',
        gcpServiceAccountJson: '{"private": "sk-tenant-first-key-0123456789"}',
      },
      'VALIDATION_ERROR',
      /client_email and private_key/,
    ],
    [
      'a negative cap',
      { provider: 'openai', slug: 'neg', apiKey: TENANT_KEY, dailyCapMicros: -1 },
      'VALIDATION_ERROR',
      /dailyCapMicros/,
    ],
    [
      'openai-compatible without a base URL',
      { providerName: 'openai-compatible', slug: 'nourl' },
      'VALIDATION_ERROR',
      /baseUrl is required/,
    ],
    [
      'an unknown workspace',
      { provider: 'openai', slug: 'ws', apiKey: TENANT_KEY, workspaceId: 'nope' },
      'NOT_FOUND',
      /nope/,
    ],
  ])('refuses %s', async (_name, variables, code, message) => {
    const result = await upsert(variables);
    expect(result.errors?.[0]?.extensions?.code).toBe(code);
    expect(result.errors?.[0]?.message).toMatch(message);
  });

  it('needs the credentials:manage permission', async () => {
    const result = await upsert({ provider: 'openai', slug: 'nope', apiKey: TENANT_KEY }, limitedPat);
    expect(result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const listed = await graphql(gateway.controlUrl, limitedPat, '{ providerCredentials { slug } }');
    expect(listed.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('providerCredentials and providerAvailability', () => {
  it('lists the tenant credentials with keyHint and readiness, never a secret', async () => {
    const entries = await list();
    const slugs = entries.map((entry) => entry.slug);
    expect(slugs).toEqual([...slugs].sort());
    expect(slugs).toEqual(expect.arrayContaining(['my-llm', 'claude', 'gemini', 'mantle-a', 'compat']));
    expect(entries.find((entry) => entry.slug === 'claude')).toMatchObject({
      kind: 'anthropic',
      keyHint: 'sk-…6789',
      ready: true,
      status: 'Ready',
    });
  });

  it('shows a workspace-scoped credential only to its workspace', async () => {
    await upserted({
      provider: 'openai',
      slug: 'ws-only',
      apiKey: TENANT_KEY,
      baseUrl: `${tenantUpstream.url}/v1`,
      workspaceId: gateway.credentials.workspaceId,
    });
    expect((await list(gateway.credentials.workspaceId)).map((entry) => entry.slug)).toContain('ws-only');
  });

  it('says which providers a workspace can use, on the platform key or its own', async () => {
    const result = await graphql<{
      providerAvailability: {
        provider: string;
        kind: string | null;
        platform: boolean;
        connectionSlugs: string[];
        available: boolean;
      }[];
    }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      `query($w: String!) { providerAvailability(workspaceId: $w) { provider kind platform connectionSlugs available } }`,
      { w: gateway.credentials.workspaceId },
    );
    expect(result.errors).toBeUndefined();
    const byName = new Map(result.data!.providerAvailability.map((entry) => [entry.provider, entry]));
    expect(byName.get('openai')).toEqual({
      provider: 'openai',
      kind: 'openai',
      platform: true,
      connectionSlugs: ['ws-only'],
      available: true,
    });
    expect(byName.get('anthropic')).toMatchObject({
      platform: false,
      connectionSlugs: ['claude'],
      available: true,
    });
    expect(byName.get('openai-compatible')).toMatchObject({
      kind: 'openaiCompatible',
      platform: false,
      connectionSlugs: ['compat', 'my-llm'],
    });
    expect(byName.get('bedrock-mantle')).toMatchObject({
      kind: 'bedrockMantle',
      platform: true,
      connectionSlugs: ['mantle-a', 'mantle-b', 'mantle-c'],
    });
    expect(byName.get('bedrock')).toMatchObject({ kind: 'bedrock', platform: true, available: true });
    expect(byName.get('vertex')).toMatchObject({ platform: false, connectionSlugs: [], available: false });
    expect(byName.get('groq')).toMatchObject({ kind: null, platform: false, available: false });
  });
});

describe('testProviderCredential', () => {
  it('lists the models of an OpenAI-style upstream with the Bearer key', async () => {
    const result = await probe('my-llm');
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.message).toContain('1 models listed');
    const request = tenantUpstream.requests.at(-1)!;
    expect(`${request.method} ${request.path}`).toBe('GET /v1/models');
    expect(request.headers.authorization).toBe(`Bearer ${ROTATED_KEY}`);
  });

  it('reports a refused key with the upstream status, the key scrubbed from its message', async () => {
    tenantUpstream.overrideNext((request, response) =>
      sendJson(response, 401, {
        error: {
          message: `Incorrect API key provided: ${String(request.headers.authorization).slice(7)}.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      }),
    );
    const result = await probe('my-llm');
    expect(result).toMatchObject({ ok: false, status: 401 });
    expect(result.message).toContain('Incorrect API key provided: [redacted]');
  });

  it('probes Anthropic with x-api-key and anthropic-version', async () => {
    expect(await probe('claude')).toMatchObject({ ok: true, status: 200 });
    const request = anthropic.requests.at(-1)!;
    expect(`${request.method} ${request.path}`).toBe('GET /v1/models');
    expect(request.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('probes Gemini with x-goog-api-key, and reports its 400 for a bad key', async () => {
    expect(await probe('gemini')).toMatchObject({
      ok: true,
      status: 200,
      message: 'credential accepted; 2 models listed',
    });
    expect(gemini.requests.at(-1)!.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    await upserted({
      provider: 'gemini',
      slug: 'gemini-bad',
      apiKey: 'AIza-wrong-key-0000000000',
      baseUrl: gemini.url,
    });
    const refused = await probe('gemini-bad');
    expect(refused).toMatchObject({ ok: false, status: 400 });
    expect(refused.message).toContain('API key not valid');
  });

  it('probes Bedrock Mantle with the Bedrock API key', async () => {
    expect(await probe('mantle-b')).toMatchObject({ ok: true, status: 200 });
    expect(tenantUpstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${MANTLE_KEY}`);
  });

  it('probes Bedrock Mantle with AWS keys by a SigV4 signature for bedrock-mantle', async () => {
    secrets.push('aws-secret-access-key-0123456789abcdef');
    await upserted({
      providerName: 'bedrock-mantle',
      slug: 'mantle-aws',
      awsAccessKeyId: 'AKIAEXAMPLE0123456789',
      awsSecretAccessKey: 'aws-secret-access-key-0123456789abcdef',
      awsRegion: 'us-west-2',
      baseUrl: `${tenantUpstream.url}/v1`,
    });
    expect(await probe('mantle-aws')).toMatchObject({ ok: true, status: 200 });
    const authorization = String(tenantUpstream.requests.at(-1)!.headers.authorization);
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE0123456789\/\d{8}\/us-west-2\/bedrock-mantle\/aws4_request, SignedHeaders=.*host.*, Signature=[0-9a-f]{64}$/,
    );
  });

  it('probes Vertex by the service account token exchange', async () => {
    const account = (issuer: string) =>
      JSON.stringify({
        type: 'service_account',
        project_id: 'proj-1',
        private_key_id: 'kid-1',
        private_key: privateKey,
        client_email: issuer,
        token_uri: `${tokenEndpoint.url}/token`,
      });
    const created = await upserted({
      provider: 'vertex',
      slug: 'vx',
      gcpServiceAccountJson: account('probe@proj-1.iam.gserviceaccount.com'),
      vertexProject: 'proj-1',
      vertexRegion: 'us-central1',
    });
    expect(created.keyHint).toBe('…@proj-1.iam.gserviceaccount.com');
    expect(await probe('vx')).toMatchObject({ ok: true, status: 200 });
    expect(new URLSearchParams(tokenEndpoint.requests.at(-1)!.rawBody).get('grant_type')).toBe(
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
    );
    await upserted({
      provider: 'vertex',
      slug: 'vx',
      gcpServiceAccountJson: account('other@proj-1.iam.gserviceaccount.com'),
    });
    const refused = await probe('vx');
    expect(refused).toMatchObject({ ok: false, status: 400 });
    expect(refused.message).toContain('invalid_grant');
  });

  it('answers NOT_FOUND for an unknown slug', async () => {
    const result = await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation { testProviderCredential(slug: "nope") { ok } }',
    );
    expect(result.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('revokeProviderCredential', () => {
  it('removes the Connection and its Secret; @slug/ then falls back, or 404s when BYOK is required', async () => {
    const result = await graphql<{ revokeProviderCredential: boolean }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation { revokeProviderCredential(slug: "my-llm") }',
    );
    expect(result.data?.revokeProviderCredential).toBe(true);
    const namespace = tenantNamespace(gateway.credentials.tenantId);
    expect(await gateway.running.resources.get('Connection', 'my-llm', namespace)).toBeUndefined();
    expect(await gateway.running.resources.get('Secret', 'my-llm-credential', namespace)).toBeUndefined();

    const tenantBefore = tenantUpstream.requests.length;
    const fallback = await chat('@my-llm/gpt-4o');
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get('x-service-byok')).toBe('false');
    expect(platform.requests.at(-1)!.headers.authorization).toBe(`Bearer ${PLATFORM_KEY}`);
    expect(tenantUpstream.requests.length).toBe(tenantBefore);

    const strict = await chat('@my-llm/gpt-4o', { 'x-service-byok': 'required' });
    expect(strict.status).toBe(404);
    expect(((await strict.json()) as { error: { code: string } }).error.code).toBe(
      'service.connection_not_found',
    );

    const again = await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation { revokeProviderCredential(slug: "my-llm") }',
    );
    expect(again.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it("makes an unknown slug a 404 for every request once the tenant's strictByok is set", async () => {
    const { resources } = gateway.running;
    const tenant = await resources.get('Tenant', gateway.credentials.tenantId);
    await resources.apply({ ...tenant!, spec: { ...tenant!.spec, strictByok: true } });
    await gateway.running.settled();
    const response = await chat('@my-llm/gpt-4o');
    expect(response.status).toBe(404);
    // Known slugs still serve.
    expect((await chat('@claude/claude-3-5-sonnet-20241022')).status).toBe(200);
  });
});

describe('the audit log', () => {
  it('records every credential mutation with its slug, and never a secret', async () => {
    const result = await graphql<{ auditLog: { operation: string; target: string; outcome: string }[] }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      '{ auditLog(limit: 200) { operation target outcome message actor at } }',
    );
    expectNoSecret(result);
    const entries = result.data!.auditLog;
    const operations = new Set(entries.map((entry) => entry.operation));
    for (const operation of [
      'upsertProviderCredential',
      'testProviderCredential',
      'revokeProviderCredential',
    ])
      expect(operations).toContain(operation);
    expect(entries).toContainEqual(
      expect.objectContaining({
        operation: 'revokeProviderCredential',
        target: 'my-llm',
        outcome: 'success',
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ operation: 'upsertProviderCredential', outcome: 'failure' }),
    );
  });
});
