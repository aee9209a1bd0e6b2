/**
 * Steady load for the Redis failure suites: a few workers asking the gateway one unique chat
 * question after another, summing the `x-service-balance-charged-micros` of every answer (what the
 * tenant's balance must end down by) and keeping every non-200 answer. `flagged` counts the answers
 * served while the test's flag is up (during an outage or a stall).
 */
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { postJson, type TestGateway } from './test-gateway.ts';

export interface ChargedLoad {
  /** Questions asked so far. */
  readonly asked: number;
  /** The sum of the charges of the answers so far. */
  readonly charged: number;
  readonly failures: readonly string[];
  /** Answers served while `flag` was true. */
  readonly flagged: number;
  flag: boolean;
  /** Stops asking and waits for the questions in flight. */
  stop(): Promise<void>;
}

export function startChargedLoad(gateway: TestGateway, workers = 4): ChargedLoad {
  let stopping = false;
  const load = {
    asked: 0,
    charged: 0,
    failures: [] as string[],
    flagged: 0,
    flag: false,
    stop: async () => {
      stopping = true;
      await running;
    },
  };
  const worker = async () => {
    while (!stopping) {
      load.asked += 1;
      const response = await postJson(
        `${gateway.url}/v1/chat/completions`,
        { model: 'openai/gpt-4o', messages: [{ role: 'user', content: `question ${load.asked}` }] },
        gateway.credentials.apiKey,
      );
      const body = await response.text();
      if (response.status !== 200) {
        load.failures.push(`${response.status} ${body.slice(0, 200)}`);
        continue;
      }
      load.charged += Number(response.headers.get('x-service-balance-charged-micros'));
      if (load.flag) load.flagged += 1;
    }
  };
  const running = Promise.all(Array.from({ length: workers }, () => worker()));
  return load;
}

/** Resolves once `predicate` holds, checking every 10 ms (the load's counters have no events). */
export async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** `field` (`master_repl_offset`, `slave_repl_offset`) of an `INFO replication` reply. */
function replicationOffset(info: string, field: string): number {
  return Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(info)?.[1] ?? Number.NaN);
}

/**
 * The master stops executing writes (CLIENT PAUSE WRITE: its clients' commands wait, unexecuted)
 * and its replica catches up with everything it executed: what a failover then loses is the
 * gateway's doing, not asynchronous replication's.
 */
export async function pauseWritesUntilReplicated(master: Redis, replica: Redis): Promise<void> {
  await master.call('CLIENT', 'PAUSE', '60000', 'WRITE');
  const executed = replicationOffset(await master.info('replication'), 'master_repl_offset');
  await expect
    .poll(async () => replicationOffset(await replica.info('replication'), 'slave_repl_offset'), {
      timeout: 10_000,
      interval: 20,
    })
    .toBeGreaterThanOrEqual(executed);
}

/** What the Redis failover suites give their gateway beside the Redis settings: a fake OpenAI and a balance. */
export function chargedGatewaySettings(openAiUrl: string, startingBalance: number): Record<string, string> {
  return {
    GATEWAY_CACHE: 'on',
    BOOTSTRAP_BALANCE_MICROS: String(startingBalance),
    OPENAI_API_KEY: 'sk-platform',
    OPENAI_BASE_URL: `${openAiUrl}/v1`,
    LOG_LEVEL: 'warn',
  };
}

/**
 * Waits (45 s at most: the journal is replayed once the breaker's probe reaches the new master,
 * longer on a loaded 2-core CI host) for `balance` to read what the load's charges leave. If it
 * does not, fails with the journal's readings and the gateway's last warnings (its `logLines`).
 */
export async function expectBalanceSettles(options: {
  gateway: TestGateway;
  load: ChargedLoad;
  logLines: readonly string[];
  startingBalance: number;
  balance: () => Promise<number>;
}): Promise<void> {
  const { gateway, load, logLines, startingBalance, balance } = options;
  const expected = startingBalance - load.charged;
  try {
    await expect.poll(balance, { timeout: 45_000, interval: 100 }).toBe(expected);
  } catch (error) {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    throw new Error(
      [
        `balance ${await balance()}, expected ${expected}`,
        `load: ${load.asked} asked, ${load.charged} micros charged, ${load.flagged} answered during the outage`,
        ...metrics.split('\n').filter((line) => /^gateway_(spend_journal|runtime_store)/.test(line)),
        ...logLines.slice(-40).map((line) => {
          const entry = JSON.parse(line) as {
            time: number;
            msg: string;
            err?: { type?: string; message?: string };
          };
          return `${new Date(entry.time).toISOString()} ${entry.msg}${entry.err ? ` (${entry.err.type}: ${entry.err.message})` : ''}`;
        }),
      ].join('\n'),
      { cause: error },
    );
  }
}

/**
 * What the Redis failover suites check once the load has stopped: no request failed, more than 60
 * were answered while the flag was up (the outage was served, degraded), and `balance` reads what
 * the charges leave (expectBalanceSettles).
 */
export async function expectNothingLost(options: Parameters<typeof expectBalanceSettles>[0]): Promise<void> {
  expect(options.load.failures).toEqual([]);
  expect(options.load.flagged).toBeGreaterThan(60);
  await expectBalanceSettles(options);
}

/**
 * Waits (30 s at most) for the gateway to report its runtime store up and nothing journaled. An
 * entry whose store was still moving when the rest were replayed (another Cluster shard) goes with
 * the next replay: the breaker's next recovery, or the gateway's 5-second timer.
 */
export async function expectStoreRecovered(gateway: TestGateway): Promise<void> {
  const readings = async () => {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    return metrics
      .split('\n')
      .filter((line) => /^gateway_(runtime_store_up|spend_journal_entries) /.test(line))
      .sort();
  };
  await expect
    .poll(readings, { timeout: 30_000, interval: 200 })
    .toEqual(['gateway_runtime_store_up 1', 'gateway_spend_journal_entries 0']);
}
