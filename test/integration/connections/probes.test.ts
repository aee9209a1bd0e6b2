/**
 * The upstream probes behind testProviderCredential, called directly: Bedrock's SigV4-signed STS
 * GetCallerIdentity (a fake STS that checks the signature; bedrock-probe.test.ts goes through
 * GraphQL), an unreachable upstream, and the secret scrubbing of messages.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeConnection, scrubSecrets } from '../../../src/control-plane/credential-probe.ts';
import { FakeServer, type RecordedRequest } from '../../fakes/fake-server.ts';

const ACCESS_KEY_ID = 'AKIAPROBE0123456789X';
const SECRET_ACCESS_KEY = 'probe-secret-access-key-0123456789abcdefgh';

/** Re-signs the request as received with the known secret: the signature must come out the same. */
async function signatureMatches(request: RecordedRequest, region: string): Promise<boolean> {
  const authorization = String(request.headers.authorization ?? '');
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = String(request.headers[name] ?? '');
  const signer = new SignatureV4({
    service: 'sts',
    region,
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
    sha256: Hash.bind(null, 'sha256') as unknown as ConstructorParameters<typeof SignatureV4>[0]['sha256'],
  });
  const [hostname, port] = headers.host!.split(':');
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: hostname!,
      port: Number(port),
      path: request.path,
      query: {},
      headers,
      body: request.rawBody,
    },
    { signingDate },
  );
  return signed.headers.authorization === authorization;
}

let sts: FakeServer;

beforeAll(async () => {
  sts = await new FakeServer()
    .route('POST', '/', async (request, response) => {
      const valid =
        request.rawBody === 'Action=GetCallerIdentity&Version=2011-06-15' &&
        String(request.headers.authorization).includes(`Credential=${ACCESS_KEY_ID}/`) &&
        (await signatureMatches(request, 'eu-central-1'));
      response.writeHead(valid ? 200 : 403, { 'content-type': 'text/xml' });
      response.end(
        valid
          ? '<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/probe</Arn><UserId>AIDAEXAMPLE</UserId><Account>123456789012</Account></GetCallerIdentityResult></GetCallerIdentityResponse>'
          : '<ErrorResponse><Error><Type>Sender</Type><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error></ErrorResponse>',
      );
    })
    .start();
});

afterAll(async () => {
  await sts?.stop();
});

const bedrock = { provider: 'bedrock' as const, awsRegion: 'eu-central-1' };

describe('the Bedrock probe (STS GetCallerIdentity)', () => {
  it('signs GetCallerIdentity with SigV4 for sts in the Connection region', async () => {
    const result = await probeConnection(
      bedrock,
      { awsAccessKeyId: ACCESS_KEY_ID, awsSecretAccessKey: SECRET_ACCESS_KEY },
      { stsUrl: `${sts.url}/` },
    );
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      message: 'credential accepted; caller arn:aws:iam::123456789012:user/probe',
    });
    const request = sts.requests.at(-1)!;
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
    expect(String(request.headers.authorization)).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY_ID}/\\d{8}/eu-central-1/sts/aws4_request, `),
    );
  });

  it("reports AWS's refusal of a wrong secret with its status and message", async () => {
    const wrongSecret = 'wrong-secret-access-key-0123456789abcdefgh';
    const result = await probeConnection(
      bedrock,
      { awsAccessKeyId: ACCESS_KEY_ID, awsSecretAccessKey: wrongSecret },
      { stsUrl: `${sts.url}/` },
    );
    expect(result).toMatchObject({ ok: false, status: 403 });
    expect(result.message).toContain('signature we calculated does not match');
    expect(result.message).not.toContain(wrongSecret);
  });
});

describe('probes that get no answer', () => {
  it('says the upstream could not be reached, with no status', async () => {
    const closed = await new FakeServer().start();
    const url = closed.url;
    await closed.stop();
    const result = await probeConnection(
      { provider: 'openai', baseUrl: `${url}/v1` },
      { apiKey: 'sk-unreachable-0123456789' },
    );
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.message).toContain(`could not reach ${url}`);
  });

  it('says when a kind cannot be probed with the credential it has', async () => {
    const result = await probeConnection({ provider: 'vertex' }, { apiKey: 'vertex-api-key-0123456789' });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.message).toContain('needs a service account');
  });
});

describe('scrubSecrets', () => {
  it('replaces every secret value, longest first, and leaves short values alone', () => {
    expect(
      scrubSecrets('key sk-abcdef123 and sk-abcdef123456 and x', {
        apiKey: 'sk-abcdef123456',
        other: 'sk-abcdef123',
        tiny: 'x',
      }),
    ).toBe('key [redacted] and [redacted] and x');
  });
});
