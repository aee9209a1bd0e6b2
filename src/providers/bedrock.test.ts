import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../config/settings.ts';
import { ProviderUnavailableError } from '../errors/gateway-error.ts';
import { createSigV4Signer } from './aws-sigv4.ts';
import { createPlatformEndpoints, resolvePlatformRoute } from './platform-routes.ts';
import { PROVIDER_NAMES } from './registry.ts';

const AWS_KEYS = {
  AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/EXAMPLEKEY',
};
const CLAUDE = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

function route(model: string, env: Record<string, string>) {
  const endpoints = createPlatformEndpoints(loadSettings(env, PROVIDER_NAMES));
  return resolvePlatformRoute(model, 'chat', endpoints, 'openai');
}

describe('bedrock providers', () => {
  it('sign with SigV4 on the regional runtime when the platform has AWS keys', () => {
    const resolved = route(`bedrock/${CLAUDE}`, { ...AWS_KEYS, AWS_REGION: 'eu-west-3' });
    expect(resolved.baseUrl).toBe('https://bedrock-runtime.eu-west-3.amazonaws.com');
    expect(resolved.upstreamModel).toBe(CLAUDE);
    expect(resolved.nativePath).toBeUndefined(); // Converse: the path comes from the translation
    expect(resolved.sign).toBeTypeOf('function');
    expect(resolved.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('prefer BEDROCK_REGION over AWS_REGION, and default to us-east-1', () => {
    expect(
      route(`bedrock/${CLAUDE}`, { ...AWS_KEYS, AWS_REGION: 'eu-west-3', BEDROCK_REGION: 'us-west-2' })
        .baseUrl,
    ).toBe('https://bedrock-runtime.us-west-2.amazonaws.com');
    expect(route('bedrock-mantle/openai.gpt-oss-120b', AWS_KEYS).baseUrl).toBe(
      'https://bedrock-mantle.us-east-1.api.aws/v1',
    );
  });

  it('send a Bedrock API key as Bearer, unsigned (BEDROCK_API_KEY or AWS_BEARER_TOKEN_BEDROCK)', () => {
    const envs: Record<string, string>[] = [
      { BEDROCK_API_KEY: 'bedrock-key' },
      { AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key', ...AWS_KEYS },
    ];
    for (const env of envs) {
      const resolved = route(`bedrock/${CLAUDE}`, env);
      expect(resolved.sign).toBeUndefined();
      expect(resolved.headers.authorization).toBe('Bearer bedrock-key');
    }
    const mantle = route('bedrock-mantle/openai.gpt-oss-120b', { AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key' });
    expect(mantle.headers.authorization).toBe('Bearer bedrock-key');
    expect(mantle.nativePath).toBe('/chat/completions');
  });

  it('are unavailable (502) without any credential', () => {
    expect(() => route(`bedrock/${CLAUDE}`, {})).toThrow(ProviderUnavailableError);
  });

  it('refuse half an AWS key pair and a malformed region at start', () => {
    expect(() => loadSettings({ AWS_ACCESS_KEY_ID: 'AKIA' }, PROVIDER_NAMES)).toThrow(SettingsError);
    expect(() => loadSettings({ ...AWS_KEYS, AWS_REGION: 'US East' }, PROVIDER_NAMES)).toThrow(SettingsError);
  });

  it('take the STS URL of the credential probe from BEDROCK_STS_URL, refusing one that is no URL', () => {
    const url = 'https://sts.{region}.vpce.example/';
    expect(loadSettings({ BEDROCK_STS_URL: url }, PROVIDER_NAMES).platformAws.stsUrl).toBe(url);
    expect(() => loadSettings({ BEDROCK_STS_URL: 'sts here' }, PROVIDER_NAMES)).toThrow(/BEDROCK_STS_URL/);
  });
});

describe('createSigV4Signer', () => {
  const signer = createSigV4Signer({
    service: 'bedrock',
    region: 'eu-west-3',
    credential: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' },
  });

  it('adds host, date, payload hash, session token and the Authorization header; drops a Bearer', async () => {
    const body = '{"messages":[]}';
    const headers = await signer({
      method: 'POST',
      url: 'https://bedrock-runtime.eu-west-3.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
      headers: { 'Content-Type': 'application/json', authorization: 'Bearer stale' },
      body,
    });
    expect(headers.host).toBe('bedrock-runtime.eu-west-3.amazonaws.com');
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(headers['x-amz-security-token']).toBe('session');
    expect(headers['x-amz-content-sha256']).toBe(createHash('sha256').update(body).digest('hex'));
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-3\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
  });
});
