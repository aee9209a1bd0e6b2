/**
 * A Connection and its Secret from a RESOURCES_DIR file (as `kubectl apply -f` would give them):
 * the tenant's key reaches its upstream and the platform key never does, the attribution headers,
 * the daily cap (JSON and streamed requests count; 402 once spent), and the platform balance left
 * alone by BYOK traffic.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spendCounterName } from '../../../src/billing/accountant.ts';
import { connectionSpendCounterName } from '../../../src/billing/connection-caps.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const PLATFORM_KEY = 'sk-platform-key-0123456789';
const TEAM_KEY = 'sk-team-key-from-yaml-0123456789';
/** gpt-4o at list prices: a JSON answer (12 in, 8 out) costs 110 micros, a stream (12 in, 6 out) 90. */
const JSON_COST = 110;
const STREAM_COST = 90;
const CAP = 2 * JSON_COST + STREAM_COST;

let platform: FakeServer;
let teamUpstream: FakeServer;
let gateway: TestGateway;
let resourcesDir: string;

beforeAll(async () => {
  platform = await startFakeOpenAi();
  teamUpstream = await startFakeOpenAi();
  resourcesDir = await mkdtemp(join(tmpdir(), 'gateway-resources-'));
  await writeFile(
    join(resourcesDir, 'connections.yaml'),
    `apiVersion: v1
kind: Secret
metadata: {name: team-llm-key, namespace: tenant-default}
stringData:
  apiKey: ${TEAM_KEY}
---
apiVersion: gateway.service.io/v1alpha1
kind: Connection
metadata: {name: team-llm, namespace: tenant-default}
spec:
  provider: openai
  slug: team
  secretRef: {name: team-llm-key}
  baseUrl: ${teamUpstream.url}/v1
  dailyCapMicros: ${CAP}
---
apiVersion: gateway.service.io/v1alpha1
kind: Connection
metadata: {name: team-default, namespace: tenant-default}
spec:
  provider: openai
  secretRef: {name: team-llm-key}
  baseUrl: ${teamUpstream.url}/v1
  defaultModel: gpt-4o-mini
`,
  );
  gateway = await startTestGateway({
    OPENAI_API_KEY: PLATFORM_KEY,
    OPENAI_BASE_URL: `${platform.url}/v1`,
    RESOURCES_DIR: resourcesDir,
  });
  await gateway.running.settled();
});

afterAll(async () => {
  await gateway?.stop();
  await platform?.stop();
  await teamUpstream?.stop();
  if (resourcesDir) await rm(resourcesDir, { recursive: true, force: true });
});

const chat = (model: string, stream = false) =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { model, stream, messages: [{ role: 'user', content: 'Hi' }] },
    gateway.credentials.apiKey,
  );

const spentToday = () =>
  gateway.running.stores.runtime.getCounter(connectionSpendCounterName('default/team', Date.now()));

describe('a Connection from a resource file', () => {
  it("serves @team/ with the tenant's key on its upstream, never the platform key", async () => {
    const platformBefore = platform.requests.length;
    const response = await chat('@team/gpt-4o');
    expect(response.status).toBe(200);
    const upstream = teamUpstream.requests.at(-1)!;
    expect(upstream.headers.authorization).toBe(`Bearer ${TEAM_KEY}`);
    expect((upstream.body as { model: string }).model).toBe('gpt-4o');
    expect(platform.requests.length).toBe(platformBefore);
    for (const request of teamUpstream.requests)
      expect(request.headers.authorization).not.toContain(PLATFORM_KEY);
    expect(response.headers.get('x-service-byok')).toBe('true');
    expect(response.headers.get('x-service-credential-id')).toBe('default/team');
    expect(response.headers.get('x-service-credential-slug')).toBe('team');
    expect(response.headers.get('x-service-credential-label')).toBe('team');
    await expect.poll(spentToday).toBe(JSON_COST);
  });

  it("serves @slug with no model on the Connection's defaultModel", async () => {
    const response = await chat('@team-default');
    expect(response.status).toBe(200);
    const upstream = teamUpstream.requests.at(-1)!;
    expect((upstream.body as { model: string }).model).toBe('gpt-4o-mini');
    expect(upstream.headers.authorization).toBe(`Bearer ${TEAM_KEY}`);
    expect(response.headers.get('x-service-credential-slug')).toBe('team-default');
    // A Connection without one: a 400 that says what to write instead.
    const missing = await chat('@team/');
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain(
      "connection 'team' has no defaultModel",
    );
  });

  it('is listed by the control plane with its keyHint, never the key', async () => {
    const result = await graphql<{
      providerCredentials: {
        slug: string;
        kind: string;
        keyHint: string;
        dailyCapMicros: number;
        ready: boolean;
      }[];
    }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      '{ providerCredentials { slug kind keyHint dailyCapMicros spentTodayMicros ready status } }',
    );
    expect(JSON.stringify(result)).not.toContain(TEAM_KEY);
    expect(result.data?.providerCredentials?.filter((credential) => credential.slug === 'team')).toEqual([
      {
        slug: 'team',
        kind: 'openai',
        keyHint: 'sk-…6789',
        dailyCapMicros: CAP,
        spentTodayMicros: JSON_COST,
        ready: true,
        status: 'Ready',
      },
    ]);
  });

  it('counts streams against the daily cap too', async () => {
    const response = await chat('@team/gpt-4o', true);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-service-byok')).toBe('true');
    expect(await response.text()).toContain('[DONE]');
    // A stream is settled when it ends, after the response.
    await expect.poll(spentToday).toBe(JSON_COST + STREAM_COST);
  });

  it('stops the Connection with 402 for the rest of the UTC day once the cap is spent', async () => {
    const { runtime } = gateway.running.stores;
    const balanceBefore = await runtime.getBalance('default');
    const tenantSpendBefore = await runtime.getCounter(spendCounterName('default'));

    const last = await chat('@team/gpt-4o');
    expect(last.status).toBe(200);
    expect(last.headers.get('x-service-balance-charged-micros')).toBe('0');
    await expect.poll(spentToday).toBe(CAP);

    const upstreamBefore = teamUpstream.requests.length;
    for (const stream of [false, true]) {
      const refused = await chat('@team/gpt-4o', stream);
      expect(refused.status).toBe(402);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('service.credential_cap_exceeded');
      expect(body.error.message).toContain("connection 'team'");
      expect(body.error.message).toContain(`daily cap of ${CAP}`);
    }
    expect(teamUpstream.requests.length).toBe(upstreamBefore);
    expect(await spentToday()).toBe(CAP);

    // BYOK spend is the tenant's own: nothing of it reached the platform balance or spend counter.
    expect(await runtime.getBalance('default')).toBe(balanceBefore);
    expect(await runtime.getCounter(spendCounterName('default'))).toBe(tenantSpendBefore);

    // The platform key and its balance are unaffected by the Connection's cap.
    const platformResponse = await chat('openai/gpt-4o');
    expect(platformResponse.status).toBe(200);
    expect(platformResponse.headers.get('x-service-balance-charged-micros')).toBe(String(JSON_COST));
    expect(platform.requests.at(-1)!.headers.authorization).toBe(`Bearer ${PLATFORM_KEY}`);
  });

  it('serves again on the same day once the cap is raised', async () => {
    const upsert = await graphql<{ upsertProviderCredential: { dailyCapMicros: number; keyHint: string } }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      `mutation { upsertProviderCredential(provider: openai, slug: "team", dailyCapMicros: ${CAP + 1000}) { dailyCapMicros keyHint } }`,
    );
    expect(upsert.data?.upsertProviderCredential).toEqual({
      dailyCapMicros: CAP + 1000,
      keyHint: 'sk-…6789',
    });
    const response = await chat('@team/gpt-4o');
    expect(response.status).toBe(200);
    // The key in the resource file's Secret was kept.
    expect(teamUpstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TEAM_KEY}`);
  });
});
