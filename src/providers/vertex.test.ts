import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveHostedRoute } from './platform-routes.ts';
import type { OutgoingRequest } from './types.ts';
import {
  createVertexTokenAuth,
  publisherOf,
  resolveVertexTarget,
  VERTEX_ANTHROPIC_VERSION,
  vertex,
  vertexHost,
} from './vertex.ts';
import { GoogleAccessTokens, parseServiceAccount } from './vertex-token.ts';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const serviceAccount = JSON.stringify({
  type: 'service_account',
  project_id: 'key-project',
  private_key_id: 'k1',
  private_key: privateKey,
  client_email: 'sa@key-project.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
});

describe('vertexHost', () => {
  it('maps locations to their API hosts (providers.md §5)', () => {
    expect(vertexHost('us-central1')).toBe('us-central1-aiplatform.googleapis.com');
    expect(vertexHost('global')).toBe('aiplatform.googleapis.com');
    expect(vertexHost('eu')).toBe('aiplatform.eu.rep.googleapis.com');
  });
});

describe('publisherOf', () => {
  it('serves claude-* from the anthropic publisher and everything else from google', () => {
    expect(publisherOf('claude-sonnet-4-5@20250929').shape).toBe('anthropic');
    expect(publisherOf('gemini-2.5-pro').shape).toBe('gemini');
  });
});

describe('resolveVertexTarget', () => {
  it('addresses Gemini models under the project and region, signed with the OAuth token', () => {
    const target = resolveVertexTarget(
      'gemini-2.5-flash',
      'chat',
      { gcpServiceAccountJson: serviceAccount, region: 'europe-west4' },
      '',
    );
    expect(target.shape).toBe('gemini');
    expect(target.baseUrl).toBe('https://europe-west4-aiplatform.googleapis.com');
    expect(target.endpoint.path('streamGenerateContent?alt=sse', true)).toBe(
      '/v1/projects/key-project/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(target.nativePath).toBeUndefined();
    expect(target.sign).toBeTypeOf('function');
    expect(target.endpoint.body({ contents: [] })).toEqual({ contents: [] });
  });

  it('addresses Claude models at rawPredict / streamRawPredict with anthropic_version and no model', () => {
    const target = resolveVertexTarget(
      'claude-3-5-sonnet@20240620',
      'messages',
      { gcpServiceAccountJson: serviceAccount, project: 'billing-project' },
      'http://127.0.0.1:9999/',
    );
    expect(target.shape).toBe('anthropic');
    expect(target.baseUrl).toBe('http://127.0.0.1:9999');
    const prefix = '/v1/projects/billing-project/locations/us-central1/publishers/anthropic/models';
    expect(target.endpoint.path('messages', false)).toBe(`${prefix}/claude-3-5-sonnet@20240620:rawPredict`);
    expect(target.endpoint.path('messages', true)).toBe(
      `${prefix}/claude-3-5-sonnet@20240620:streamRawPredict`,
    );
    expect(target.nativePath).toBe(`${prefix}/claude-3-5-sonnet@20240620:rawPredict`);
    expect(
      target.endpoint.body({ model: 'claude-3-5-sonnet@20240620', max_tokens: 5, stream: true }),
    ).toEqual({
      anthropic_version: VERTEX_ANTHROPIC_VERSION,
      max_tokens: 5,
      stream: true,
    });
  });

  it('serves Gemini models in express mode with an API key, but not Claude', () => {
    const target = resolveVertexTarget('gemini-2.5-flash', 'chat', { apiKey: 'AIza-key' }, '');
    expect(target.baseUrl).toBe('https://aiplatform.googleapis.com');
    expect(target.headers).toEqual({ 'x-goog-api-key': 'AIza-key' });
    expect(target.endpoint.path('generateContent', false)).toBe(
      '/v1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(target.sign).toBeUndefined();
    expect(() => resolveVertexTarget('claude-3-5-haiku@20241022', 'chat', { apiKey: 'k' }, '')).toThrow(
      /service-account/,
    );
  });

  it('refuses embeddings, a credential without a project, and an unusable key', () => {
    const credential = { gcpServiceAccountJson: serviceAccount };
    expect(() => resolveVertexTarget('text-embedding-005', 'embeddings', credential, '')).toThrow(
      /embeddings/,
    );
    const noProject = JSON.stringify({ ...JSON.parse(serviceAccount), project_id: undefined });
    expect(() =>
      resolveVertexTarget('gemini-2.5-flash', 'chat', { gcpServiceAccountJson: noProject }, ''),
    ).toThrow(/project/);
    expect(() => resolveVertexTarget('gemini-2.5-flash', 'chat', { gcpServiceAccountJson: '{' }, '')).toThrow(
      /service-account/,
    );
    expect(() => resolveVertexTarget('gemini-2.5-flash', 'chat', {}, '')).toThrow(/vertex/);
  });
});

describe('createVertexTokenAuth', () => {
  const request: OutgoingRequest = { method: 'POST', url: 'https://vertex.test/x', headers: {}, body: '{}' };
  /** A token endpoint handing out numbered tokens, and the number of exchanges so far. */
  const numberedTokens = () => {
    let grants = 0;
    const tokens = new GoogleAccessTokens({
      transport: async () => ({
        statusCode: 200,
        text: JSON.stringify({ access_token: `token-${++grants}`, expires_in: 3599 }),
      }),
    });
    return { tokens, grants: () => grants };
  };

  it('signs with the cached token until onUnauthorized, then with a fresh one (drop the token, retry once)', async () => {
    const { tokens, grants } = numberedTokens();
    const auth = createVertexTokenAuth(parseServiceAccount(serviceAccount), tokens);
    expect((await auth.sign(request)).authorization).toBe('Bearer token-1');
    expect((await auth.sign(request)).authorization).toBe('Bearer token-1');
    auth.onUnauthorized();
    expect((await auth.sign(request)).authorization).toBe('Bearer token-2');
    expect(grants()).toBe(2);
  });

  it('drops only the token it signed with, not one another route already refreshed', async () => {
    const { tokens, grants } = numberedTokens();
    const account = parseServiceAccount(serviceAccount);
    const first = createVertexTokenAuth(account, tokens);
    const second = createVertexTokenAuth(account, tokens);
    await first.sign(request);
    await second.sign(request);
    second.onUnauthorized();
    expect((await second.sign(request)).authorization).toBe('Bearer token-2');
    first.onUnauthorized(); // its token-1 is already gone
    expect((await first.sign(request)).authorization).toBe('Bearer token-2');
    expect(grants()).toBe(2);
  });

  it('is on service-account routes only (an express-mode API key has nothing to refresh)', () => {
    const hosted = resolveVertexTarget(
      'gemini-2.5-flash',
      'chat',
      { gcpServiceAccountJson: serviceAccount },
      '',
    );
    expect(hosted.onUnauthorized).toBeTypeOf('function');
    // …and reaches the route the handler gets.
    const route = resolveHostedRoute(
      vertex,
      'gemini-2.5-flash',
      'chat',
      { gcpServiceAccountJson: serviceAccount },
      '',
    );
    expect(route.onUnauthorized).toBeTypeOf('function');
    expect(
      resolveVertexTarget('gemini-2.5-flash', 'chat', { apiKey: 'k' }, '').onUnauthorized,
    ).toBeUndefined();
  });
});
