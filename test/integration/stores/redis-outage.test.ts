/**
 * A Redis outage under load (DESIGN section 2): the gateway keeps answering (degraded: no cache,
 * limits open), the spend it could not write is journaled and applied once Redis is back, and the
 * tenant's balance ends exactly where the charges say. A real redis-server is crashed (SIGKILL)
 * and started again with its append-only file, while requests keep coming.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { startChargedLoad, until } from '../../helpers/charged-load.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis: RedisServer | undefined = await startRedisServer({ persistent: true });
const STARTING_BALANCE = 100_000_000;

describe.runIf(redis !== undefined)('a Redis outage under load', () => {
  let openai: FakeServer;
  let gateway: TestGateway;
  const logLines: string[] = [];

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    gateway = await startTestGateway(
      {
        REDIS_URL: (redis as RedisServer).url,
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

  it('serves through it, journals the spend and applies it exactly once when Redis is back', async () => {
    const load = startChargedLoad(gateway);

    // Some traffic on a healthy Redis, then the crash.
    await until(() => load.asked >= 40);
    await (redis as RedisServer).crash();
    load.flag = true;
    const atCrash = load.asked;
    await until(() => load.asked >= atCrash + 80);
    load.flag = false;
    await (redis as RedisServer).start();
    const atRestart = load.asked;
    await until(() => load.asked >= atRestart + 40);
    await load.stop();

    expect(load.failures).toEqual([]);
    expect(load.flagged).toBeGreaterThan(0);
    // Applied once the breaker has closed and the journal has replayed.
    const raw = new Redis((redis as RedisServer).url);
    try {
      const balance = async () => Number(await raw.get('gw:rt:bal:{default}'));
      await expect.poll(balance, { timeout: 15_000, interval: 100 }).toBe(STARTING_BALANCE - load.charged);
    } finally {
      raw.disconnect();
    }
    // Nothing is left to apply (the journal is empty), so the balance stays there. One log line per
    // state change, not one per request.
    const said = (text: string) => logLines.filter((line) => line.includes(text)).length;
    expect(said('runtime store unreachable')).toBe(1);
    expect(said('runtime store reachable again')).toBe(1);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_runtime_store_up 1$/m);
    expect(metrics).toMatch(/^gateway_runtime_store_outages_total 1$/m);
    expect(metrics).toMatch(/^gateway_spend_journal_entries 0$/m);
  });
});
