/**
 * Steady load for the Redis failure suites: a few workers asking the gateway one unique chat
 * question after another, summing the `x-service-balance-charged-micros` of every answer (what the
 * tenant's balance must end down by) and keeping every non-200 answer. `flagged` counts the answers
 * served while the test's flag is up (during an outage or a stall).
 */
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
