/**
 * testProviderCredential for a Bedrock Connection with AWS keys, through GraphQL: the control
 * plane signs STS GetCallerIdentity with the Connection's keys and region, sent to the STS
 * endpoint BEDROCK_STS_URL names (here a fake STS that checks the SigV4 signature).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_STS_ARN, type FakeBedrock, startFakeSts } from '../../fakes/fake-bedrock.ts';
import { graphql } from '../../helpers/graphql.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const TENANT_KEY = {
  accessKeyId: 'AKIATENANTPROBE01234',
  secretAccessKey: 'tenant-probe-secret-0123456789abcdefghij',
};

let sts: FakeBedrock;
let gateway: TestGateway;

beforeAll(async () => {
  sts = await startFakeSts([TENANT_KEY]);
  gateway = await startTestGateway({ BEDROCK_STS_URL: `${sts.url}/?region={region}` });
});

afterAll(async () => {
  await gateway?.stop();
  await sts?.stop();
});

interface ProbeResult {
  ok: boolean;
  status: number | null;
  message: string;
}

async function upsertBedrock(slug: string, secretAccessKey: string): Promise<void> {
  const result = await graphql(
    gateway.controlUrl,
    gateway.credentials.pat,
    `mutation($slug: String!, $id: String!, $secret: String!) {
      upsertProviderCredential(providerName: "bedrock", slug: $slug, awsAccessKeyId: $id,
        awsSecretAccessKey: $secret, awsRegion: "eu-central-1") { slug }
    }`,
    { slug, id: TENANT_KEY.accessKeyId, secret: secretAccessKey },
  );
  expect(result.errors).toBeUndefined();
}

async function probe(slug: string): Promise<ProbeResult> {
  const result = await graphql<{ testProviderCredential: ProbeResult }>(
    gateway.controlUrl,
    gateway.credentials.pat,
    'mutation($slug: String!) { testProviderCredential(slug: $slug) { ok status message } }',
    { slug },
  );
  expect(result.errors).toBeUndefined();
  expect(JSON.stringify(result)).not.toContain(TENANT_KEY.secretAccessKey);
  return result.data!.testProviderCredential;
}

describe('testProviderCredential on a Bedrock Connection with AWS keys', () => {
  it('proves the keys by a SigV4-signed STS GetCallerIdentity in the Connection region', async () => {
    await upsertBedrock('team-bedrock', TENANT_KEY.secretAccessKey);
    expect(await probe('team-bedrock')).toEqual({
      ok: true,
      status: 200,
      message: `credential accepted; caller ${FAKE_STS_ARN}`,
    });
    const request = sts.requests.at(-1)!;
    // `{region}` of BEDROCK_STS_URL is the Connection's; the fake re-derived the signature.
    expect(request.path).toBe('/?region=eu-central-1');
    expect(request.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${TENANT_KEY.accessKeyId}/\\d{8}/eu-central-1/sts/aws4_request, `,
      ),
    );
  });

  it("reports STS's refusal of a wrong secret with its status and code", async () => {
    await upsertBedrock('wrong-bedrock', 'not-the-tenant-secret-0123456789abcdef');
    const result = await probe('wrong-bedrock');
    expect(result).toMatchObject({ ok: false, status: 403 });
    expect(result.message).toContain('signature we calculated does not match');
    expect(result.message).not.toContain('not-the-tenant-secret-0123456789abcdef');
  });
});
