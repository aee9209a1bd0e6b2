/**
 * A Redis that stalls rather than crashes (SIGSTOP: a fork on a large data set, a long script, a
 * frozen host): its connections stay open, and what the gateway wrote before giving up on a command
 * waits unread in the server's socket buffers, to be run when the server wakes. The gateway keeps
 * answering meanwhile, and the tenant's balance must end exactly where the charges say: no debit
 * lost, none applied twice (once by the command that timed out, once more by the journal's replay).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiCompletion, startFakeOpenAi } from '../../fakes/fake-openai.ts';
import { type FakeServer, sendJson } from '../../fakes/fake-server.ts';
import { startChargedLoad, until } from '../../helpers/charged-load.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis: RedisServer | undefined = await startRedisServer({ persistent: true });
const STARTING_BALANCE = 100_000_000;

describe.runIf(redis !== undefined)('a Redis that stalls under load', () => {
  let openai: FakeServer;
  let gateway: TestGateway;
  const logLines: string[] = [];

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    gateway = await startTestGateway(
      {
        REDIS_URL: (redis as RedisServer).url,
        REDIS_COMMAND_TIMEOUT_MS: '200',
        GATEWAY_CACHE: 'on',
        BOOTSTRAP_BALANCE_MICROS: String(STARTING_BALANCE),
        OPENAI_API_KEY: 'sk-platform',
        OPENAI_BASE_URL: `${openai.url}/v1`,
        LOG_LEVEL: 'info',
      },
      undefined,
      { logLines },
    );
  });
  afterAll(async () => {
    await gateway?.stop();
    await openai?.stop();
    await redis?.stop();
  });

  it('serves through it, and applies every charge exactly once when it wakes', async () => {
    const load = startChargedLoad(gateway);
    const server = redis as RedisServer;
    const raw = new Redis(server.url);
    const metrics = async () => (await fetch(`${gateway.url}/metrics`)).text();
    try {
      await until(() => load.asked >= 40);
      // Stalled while a request is upstream: its reads are done, and its debit goes to the sleeper.
      openai.overrideNext((request, response) => {
        server.pause();
        load.flag = true;
        sendJson(response, 200, openAiCompletion(String((request.body as { model?: unknown }).model)));
      });
      await until(() => load.flag);
      const atPause = load.asked;
      // Past the command timeout: the breaker opens and the gateway serves degraded.
      await until(() => logLines.some((line) => line.includes('runtime store unreachable')));
      await until(() => load.asked >= atPause + 80);
      // The debits the stalled server was sent are neither applied nor journaled yet: awaited.
      expect(await metrics()).toMatch(/^gateway_spend_journal_awaiting [1-9]\d*$/m);
      expect(await metrics()).toMatch(/^gateway_runtime_store_up 0$/m);
      load.flag = false;
      server.resume();
      await until(() => logLines.some((line) => line.includes('runtime store reachable again')));
      const atResume = load.asked;
      await until(() => load.asked >= atResume + 40);
      await load.stop();

      expect(load.failures).toEqual([]);
      expect(load.flagged).toBeGreaterThan(0);
      // Everything settled: no change awaiting the store's answer, none journaled, the store up.
      const settled = (text: string) =>
        /^gateway_spend_journal_awaiting 0$/m.test(text) &&
        /^gateway_spend_journal_entries 0$/m.test(text) &&
        /^gateway_runtime_store_up 1$/m.test(text);
      await expect.poll(async () => settled(await metrics()), { timeout: 15_000, interval: 100 }).toBe(true);
      // Each charge applied once: not lost, and not applied by the woken server and by a replay both.
      expect(Number(await raw.get('gw:rt:bal:{default}'))).toBe(STARTING_BALANCE - load.charged);
    } finally {
      server.resume();
      await load.stop();
      raw.disconnect();
    }
  });

  it('says not ready and stops while Redis is stalled: neither waits for a server that cannot answer', async () => {
    const server = redis as RedisServer;
    const other = await startTestGateway({
      REDIS_URL: server.url,
      REDIS_COMMAND_TIMEOUT_MS: '200',
      OPENAI_API_KEY: 'sk-platform',
      OPENAI_BASE_URL: `${openai.url}/v1`,
    });
    const asked = await postJson(
      `${other.url}/v1/chat/completions`,
      { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'before the stall' }] },
      other.credentials.apiKey,
    );
    expect(asked.status).toBe(200);
    server.pause();
    try {
      // The control plane needs Redis to serve: not ready, and said so rather than left waiting.
      expect((await fetch(`${other.controlUrl}/readyz`)).status).toBe(503);
      // Without a bound on QUIT, this waits as long as the server sleeps (the test's timeout).
      await other.stop();
    } finally {
      server.resume();
    }
  });
});
