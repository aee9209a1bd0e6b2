import { generateKeyPairSync } from 'node:crypto';
import { importSPKI, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../errors/gateway-error.ts';
import {
  CLOUD_PLATFORM_SCOPE,
  GoogleAccessTokens,
  JWT_BEARER_GRANT,
  parseServiceAccount,
  type ServiceAccount,
  type TokenTransport,
} from './vertex-token.ts';

const TOKEN_URI = 'https://oauth2.test/token';

const { publicKey, privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

const keyFile = (fields: Record<string, string> = {}) =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'proj-1',
    private_key_id: 'kid-1',
    private_key: privateKey,
    client_email: 'gateway@proj-1.iam.gserviceaccount.com',
    token_uri: TOKEN_URI,
    ...fields,
  });

const account = (): ServiceAccount => parseServiceAccount(keyFile());

/** A token endpoint that verifies each assertion like Google does and hands out numbered tokens. */
function fakeTokenEndpoint(expiresIn = 3599) {
  const grants: { url: string; claims: Record<string, unknown>; header: Record<string, unknown> }[] = [];
  const transport: TokenTransport = async (url, form) => {
    const params = new URLSearchParams(form);
    expect(params.get('grant_type')).toBe(JWT_BEARER_GRANT);
    const { payload, protectedHeader } = await jwtVerify(
      params.get('assertion') ?? '',
      await importSPKI(publicKey, 'RS256'),
      { audience: TOKEN_URI, issuer: 'gateway@proj-1.iam.gserviceaccount.com' },
    );
    grants.push({ url, claims: payload, header: protectedHeader });
    return {
      statusCode: 200,
      text: JSON.stringify({
        access_token: `token-${grants.length}`,
        expires_in: expiresIn,
        token_type: 'Bearer',
      }),
    };
  };
  return { grants, transport };
}

describe('parseServiceAccount', () => {
  it('reads the fields the grant needs, defaulting token_uri to Google', () => {
    const parsed = parseServiceAccount(keyFile({ token_uri: '' }));
    expect(parsed).toMatchObject({
      clientEmail: 'gateway@proj-1.iam.gserviceaccount.com',
      privateKeyId: 'kid-1',
      projectId: 'proj-1',
      tokenUri: 'https://oauth2.googleapis.com/token',
    });
  });

  it('turns the literal \\n of a key pasted into an environment variable back into newlines', () => {
    const parsed = parseServiceAccount(keyFile({ private_key: privateKey.replaceAll('\n', '\\n') }));
    expect(parsed.privateKey).toBe(privateKey);
  });

  it('refuses what is not a usable key file', () => {
    expect(() => parseServiceAccount('not json')).toThrow(/service-account JSON/);
    expect(() => parseServiceAccount(JSON.stringify({ client_email: 'a@b' }))).toThrow(/private_key/);
  });
});

describe('GoogleAccessTokens', () => {
  it('exchanges an RS256 assertion with the documented claims at the key token_uri', async () => {
    const endpoint = fakeTokenEndpoint();
    const now = Math.floor(Date.now() / 1000) * 1000;
    const tokens = new GoogleAccessTokens({ transport: endpoint.transport, now: () => now });
    expect(await tokens.get(account())).toBe('token-1');
    const [grant] = endpoint.grants;
    expect(grant!.url).toBe(TOKEN_URI);
    expect(grant!.header).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'kid-1' });
    expect(grant!.claims).toEqual({
      iss: 'gateway@proj-1.iam.gserviceaccount.com',
      scope: CLOUD_PLATFORM_SCOPE,
      aud: TOKEN_URI,
      iat: now / 1000,
      exp: now / 1000 + 3600,
    });
  });

  it('serves the cached token until five minutes before expiry, then exchanges again', async () => {
    const endpoint = fakeTokenEndpoint(3600);
    let now = Date.now();
    const tokens = new GoogleAccessTokens({ transport: endpoint.transport, now: () => now });
    expect(await tokens.get(account())).toBe('token-1');
    now += 3_294_000; // 54 min 54 s
    expect(await tokens.get(account())).toBe('token-1');
    now += 6_000; // 55 min: inside the five-minute margin
    expect(await tokens.get(account())).toBe('token-2');
    expect(endpoint.grants).toHaveLength(2);
  });

  it('counts a short lifetime from the exchange to the millisecond, not from the whole second', async () => {
    const endpoint = fakeTokenEndpoint(1);
    let now = Math.floor(Date.now() / 1000) * 1000 + 950;
    const tokens = new GoogleAccessTokens({ transport: endpoint.transport, now: () => now });
    expect(await tokens.get(account())).toBe('token-1');
    now += 500; // the next whole second has begun, but the token has 0.4 s left before its margin
    expect(await tokens.get(account())).toBe('token-1');
    now += 450;
    expect(await tokens.get(account())).toBe('token-2');
  });

  it('lets concurrent callers share one exchange', async () => {
    const endpoint = fakeTokenEndpoint();
    const tokens = new GoogleAccessTokens({ transport: endpoint.transport });
    const all = await Promise.all(Array.from({ length: 5 }, () => tokens.get(account())));
    expect(all).toEqual(Array(5).fill('token-1'));
    expect(endpoint.grants).toHaveLength(1);
  });

  it('keeps tokens per account', async () => {
    const endpoint = fakeTokenEndpoint();
    const tokens = new GoogleAccessTokens({ transport: endpoint.transport });
    await tokens.get(account());
    await tokens.get(parseServiceAccount(keyFile({ private_key_id: 'kid-2' })));
    expect(endpoint.grants).toHaveLength(2);
  });

  it('drops a token on invalidate', async () => {
    const endpoint = fakeTokenEndpoint();
    const tokens = new GoogleAccessTokens({ transport: endpoint.transport });
    await tokens.get(account());
    tokens.invalidate(account());
    expect(await tokens.get(account())).toBe('token-2');
  });

  it('keeps a newer token when asked to drop an older one that is no longer cached', async () => {
    const endpoint = fakeTokenEndpoint();
    const tokens = new GoogleAccessTokens({ transport: endpoint.transport });
    await tokens.get(account());
    tokens.invalidate(account(), 'token-1');
    expect(await tokens.get(account())).toBe('token-2');
    tokens.invalidate(account(), 'token-1'); // a late 401 for the old token
    expect(await tokens.get(account())).toBe('token-2');
    expect(endpoint.grants).toHaveLength(2);
  });

  it('maps a refused grant to a 502 upstream_auth_error and does not cache the failure', async () => {
    let refuse = true;
    const endpoint = fakeTokenEndpoint();
    const tokens = new GoogleAccessTokens({
      transport: async (url, form) =>
        refuse
          ? {
              statusCode: 400,
              text: JSON.stringify({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }),
            }
          : endpoint.transport(url, form),
    });
    const error = await tokens.get(account()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({
      statusCode: 502,
      upstreamStatus: 400,
      type: 'upstream_auth_error',
      retryable: false,
      message: expect.stringContaining('invalid_grant: Invalid JWT Signature.'),
    });
    refuse = false;
    expect(await tokens.get(account())).toBe('token-1');
  });

  it('maps token endpoint outages and rate limits to retryable errors', async () => {
    for (const [status, gatewayStatus] of [
      [503, 502],
      [429, 429],
    ] as const) {
      const tokens = new GoogleAccessTokens({
        transport: async () => ({ statusCode: status, text: 'busy' }),
      });
      await expect(tokens.get(account())).rejects.toMatchObject({
        statusCode: gatewayStatus,
        retryable: true,
      });
    }
  });

  it('refuses a private key that is not PKCS#8', async () => {
    const tokens = new GoogleAccessTokens({ transport: fakeTokenEndpoint().transport });
    const broken = parseServiceAccount(
      keyFile({ private_key: '-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----' }),
    );
    await expect(tokens.get(broken)).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('PKCS#8'),
    });
  });
});
