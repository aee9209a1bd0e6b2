import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_OPENAI_REPLY } from '../../fakes/fake-openai.ts';
import { type FakeOpenAiOverTls, startFakeOpenAiOverTls } from '../../fakes/fake-openai-tls.ts';
import { postJson, startTestGateway } from '../../helpers/test-gateway.ts';
import { createThrowawayCertificate, trustCertificate } from '../../helpers/throwaway-tls.ts';

let upstream: FakeOpenAiOverTls;
let untrust: () => void = () => {};

beforeAll(async () => {
  const certificate = createThrowawayCertificate();
  // What NODE_EXTRA_CA_CERTS does for a gateway process trusting a private CA.
  untrust = trustCertificate(certificate.cert);
  upstream = await startFakeOpenAiOverTls(certificate);
});
afterAll(async () => {
  untrust();
  await upstream?.stop();
});

const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'openai/gpt-4o',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

/** The value of an upstream gauge for the fake's origin, as /metrics says. */
async function gauge(gatewayUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const line = text.split('\n').find((each) => each.startsWith(`${name}{origin="${upstream.url}"} `));
  return Number(line?.split(' ')[1]);
}

describe('GATEWAY_UPSTREAM_HTTP2 against a TLS upstream offering h2 and http/1.1', () => {
  it.each([
    { setting: 'on', version: '2.0', connections: 1 },
    { setting: 'unset (on)', version: '2.0', connections: 1 },
    { setting: 'off', version: '1.1', connections: 3 },
  ])(
    '$setting: every request in HTTP $version, three open streams on $connections connection(s), as the gauges say',
    async ({ setting, version, connections }) => {
      const gateway = await startTestGateway({
        OPENAI_API_KEY: 'sk-platform',
        OPENAI_BASE_URL: `${upstream.url}/v1`,
        ...(setting.startsWith('unset') ? {} : { GATEWAY_UPSTREAM_HTTP2: setting }),
      });
      const versionsBefore = upstream.versions.length;
      const connectionsBefore = upstream.connections();
      const streams = upstream.holdStreams();
      try {
        const json = await postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey);
        expect(json.status).toBe(200);
        expect(
          ((await json.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message
            .content,
        ).toBe(FAKE_OPENAI_REPLY);

        const open = [1, 2, 3].map(() =>
          postJson(
            `${gateway.url}/v1/chat/completions`,
            chat({ stream: true, stream_options: { include_usage: true } }),
            gateway.credentials.apiKey,
          ),
        );
        await streams.held(3);
        expect(await gauge(gateway.url, 'gateway_upstream_connections')).toBe(connections);
        expect(await gauge(gateway.url, 'gateway_upstream_requests_active')).toBe(3);
        expect(await gauge(gateway.url, 'gateway_upstream_requests_queued')).toBe(0);
        expect(upstream.connections() - connectionsBefore).toBe(connections);
        streams.release();
        for (const response of await Promise.all(open)) {
          expect(response.status).toBe(200);
          const text = await response.text();
          expect(text).toContain('"content":" fake"');
          expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
        }
        expect(upstream.versions.slice(versionsBefore)).toEqual([version, version, version, version]);
      } finally {
        streams.release();
        await gateway.stop();
      }
    },
  );
});
