/**
 * One undici dispatcher shared by two clients, one sending with undici's own fetch (whose Response
 * and Headers are undici's classes, not the globals: the 0.2.3 bug) and one with Node's built-in
 * fetch (an older undici, whose handlers undici 8's dispatchers refuse unless bridged).
 */
import OpenAI from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayFetch, GatewayClient } from '../src/index.ts';
import { type FakeGateway, REPLY, startFakeGateway } from './fake-gateway.ts';

let gateway: FakeGateway;
let agent: Agent;

beforeAll(async () => {
  gateway = await startFakeGateway();
  agent = new Agent({ keepAliveTimeout: 10_000 });
});

afterAll(async () => {
  await agent.close();
  await gateway.stop();
});

const messages = [{ role: 'user' as const, content: 'Hi' }];

describe('a dispatcher shared between clients', () => {
  it("undici's Response is not the global class (why headers are read by duck typing)", async () => {
    const response = await undiciFetch(`${gateway.url}/v1/models`, { dispatcher: agent });
    expect(response instanceof Response).toBe(false);
    expect(response.headers instanceof Headers).toBe(false);
    await response.text();
  });

  it('parses headers and JSON with undici fetch and with the global fetch, on one Agent', async () => {
    const withUndici = new GatewayClient({
      baseUrl: gateway.url,
      apiKey: 'tt_sk_test',
      fetch: undiciFetch,
      dispatcher: agent,
    });
    const withGlobal = new GatewayClient({ baseUrl: gateway.url, apiKey: 'tt_sk_test', dispatcher: agent });
    for (const client of [withUndici, withGlobal, withUndici, withGlobal]) {
      const result = await client.chat({ model: '@mine/gpt-4o', messages });
      expect(result.data.choices[0]?.message.content).toBe(REPLY);
      expect(result.routing).toMatchObject({ byok: true, connectionSlug: 'mine' });
      expect(result.balance).toMatchObject({ mode: 'prepaid', chargedMicros: 1500 });
      expect(client.lastRouting()).toEqual(result.routing);
    }
  });

  it('streams with both, the event-stream content type detected', async () => {
    const clients = [
      new GatewayClient({ baseUrl: gateway.url, apiKey: 'k', fetch: undiciFetch, dispatcher: agent }),
      new GatewayClient({ baseUrl: gateway.url, apiKey: 'k', dispatcher: agent }),
    ];
    for (const client of clients) {
      const result = await client.chatStream({ model: 'openai/gpt-4o', messages });
      let text = '';
      for await (const chunk of result.data) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('Hello from the stream.');
      expect(result.balance?.chargeDeferred).toBe(true);
    }
  });

  it('serves the official openai client through both fetches on the same Agent', async () => {
    const fetches = [
      createGatewayFetch({ fetch: undiciFetch, dispatcher: agent, connection: 'mine' }),
      createGatewayFetch({ dispatcher: agent, connection: 'mine' }),
    ];
    for (const fetch of fetches) {
      const openai = new OpenAI({ apiKey: 'k', baseURL: `${gateway.url}/v1`, fetch, maxRetries: 0 });
      const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages });
      expect(completion.choices[0]?.message.content).toBe(REPLY);
      expect(fetch.lastRouting()).toMatchObject({ byok: true, connectionSlug: 'mine' });
    }
  });

  it('keeps a dispatcher a request names itself', async () => {
    let dispatched = 0;
    const own = {
      dispatch(options: unknown, handler: unknown) {
        dispatched += 1;
        return (agent.dispatch as (options: unknown, handler: unknown) => boolean)(options, handler);
      },
    };
    const fetch = createGatewayFetch({ fetch: undiciFetch, dispatcher: agent });
    const response = await fetch(`${gateway.url}/v1/models`, { dispatcher: own } as RequestInit);
    expect(response.status).toBe(200);
    await response.text();
    expect(dispatched).toBe(1);
  });
});
