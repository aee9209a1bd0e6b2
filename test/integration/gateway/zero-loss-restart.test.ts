/**
 * Zero-loss restarts: two real gateway processes (`node src/main/cli.ts gateway`, on one Redis) behind
 * a round-robin TCP proxy that behaves like a Kubernetes Service (test/helpers/round-robin-proxy.ts),
 * steady load through the proxy from keep-alive clients (JSON and streaming completions), then one
 * gateway gets SIGTERM and a replacement starts, as in a rolling update. Not one request may fail:
 * every answer is a complete 200, every stream ends with its [DONE]; and the stopped process exits 0
 * within its drain delay + grace period.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHUTDOWN_LOG } from '../../../src/main/lifecycle.ts';
import {
  FAKE_OPENAI_REPLY,
  openAiCompletion,
  openAiStreamEvents,
  STREAM_PIECES,
  startFakeOpenAi,
} from '../../fakes/fake-openai.ts';
import { type FakeServer, sendJson } from '../../fakes/fake-server.ts';
import { type GatewayProcess, startGatewayProcess } from '../../helpers/gateway-process.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { type RoundRobinProxy, startRoundRobinProxy } from '../../helpers/round-robin-proxy.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis = await startRedisServer();

/** Longer than the proxy's readiness poll (100 ms) with room for a busy machine. */
const DRAIN_MS = 1_500;
const GRACE_MS = 5_000;
const LOAD_CLIENTS = 6;
/** A load client closes its connection after this many requests (and opens another). */
const REQUESTS_PER_CONNECTION = 25;
/** The load stops by itself after this long, whatever happens. */
const LOAD_LIMIT_MS = 15_000;
/** A request whose upstream answer waits for the test: a stream open across a whole shutdown. */
const HELD = 'held';

interface ChatBody {
  model: string;
  stream?: boolean;
  messages: { content: string }[];
}

/** A model that takes a little time, so that requests are in flight whenever the signal comes. */
function servePacedCompletions(openai: FakeServer, held: Promise<void>): void {
  openai.route('POST', '/v1/chat/completions', async (request, response) => {
    const body = request.body as ChatBody;
    if (!body.stream) {
      await sleep(15);
      sendJson(response, 200, openAiCompletion(body.model));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const [first, ...rest] = openAiStreamEvents(body.model, STREAM_PIECES, false);
    response.write(first);
    if (body.messages[0]?.content === HELD) await held;
    for (const event of rest) {
      await sleep(3);
      if (response.destroyed) return;
      response.write(event);
    }
    response.end();
  });
}

/** What a stream's events say, in order; throws on a line that is not an SSE field. */
function streamedText(body: string): string {
  let text = '';
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string } }[] };
    text += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}

interface SteadyLoad {
  /** Requests that succeeded so far. */
  succeeded(): number;
  /** Resolves once `count` requests in all have succeeded; rejects if the load ends first. */
  whenSucceeded(count: number): Promise<void>;
  /** Ends the load (the requests in flight finish) and says how it went. */
  stop(): Promise<{ succeeded: number; failures: string[] }>;
}

/**
 * `clients` keep-alive HTTP clients, one connection each, each sending chat completions one after
 * the other, JSON and streaming in turn, until stopped or until LOAD_LIMIT_MS. A client reconnects
 * when the server closes its connection and, like many clients and proxies, every
 * REQUESTS_PER_CONNECTION requests (so the load spreads onto a replacement, as connections do in a
 * cluster). Anything but a complete 200 is a failure.
 */
function startSteadyLoad(url: string, apiKey: string, clients: number): SteadyLoad {
  const failures: string[] = [];
  let succeeded = 0;
  let stopped = false;
  const limit = Date.now() + LOAD_LIMIT_MS;
  let waiters: { count: number; resolve: () => void }[] = [];
  const succeed = () => {
    succeeded += 1;
    waiters = waiters.filter((waiter) => {
      if (succeeded < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  };
  const runClient = async (index: number) => {
    const client = new Client(url, { pipelining: 1, maxRequestsPerClient: REQUESTS_PER_CONNECTION });
    try {
      for (let turn = 0; !stopped && Date.now() < limit; turn += 1) {
        const stream = (index + turn) % 2 === 1;
        const what = `client ${index} request ${turn} (${stream ? 'stream' : 'json'})`;
        try {
          const response = await client.request({
            path: '/v1/chat/completions',
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
            body: JSON.stringify({
              model: 'openai/gpt-4o',
              stream,
              messages: [{ role: 'user', content: `load ${index}/${turn}` }],
            }),
          });
          const body = await response.body.text();
          if (response.statusCode !== 200) {
            failures.push(`${what}: ${response.statusCode} ${body.slice(0, 200)}`);
          } else if (
            stream &&
            !(body.endsWith('data: [DONE]\n\n') && streamedText(body) === STREAM_PIECES.join(''))
          ) {
            failures.push(`${what}: incomplete stream ${JSON.stringify(body.slice(-200))}`);
          } else if (
            !stream &&
            (JSON.parse(body) as { choices: { message: { content: string } }[] }).choices[0]?.message
              .content !== FAKE_OPENAI_REPLY
          ) {
            failures.push(`${what}: unexpected body ${body.slice(0, 200)}`);
          } else {
            succeed();
          }
        } catch (error) {
          failures.push(`${what}: ${(error as Error).message}`);
        }
      }
    } finally {
      await client.close();
    }
  };
  const ended = Promise.all(Array.from({ length: clients }, (_, index) => runClient(index)));
  return {
    succeeded: () => succeeded,
    whenSucceeded(count) {
      if (succeeded >= count) return Promise.resolve();
      const reached = new Promise<void>((resolve) => waiters.push({ count, resolve }));
      const over = ended.then(() => {
        throw new Error(
          `the load ended after ${succeeded} requests, before ${count}: ${failures.join('; ')}`,
        );
      });
      return Promise.race([reached, over]);
    },
    async stop() {
      stopped = true;
      await ended;
      return { succeeded, failures };
    },
  };
}

describe.runIf(redis !== undefined)('a rolling restart of one of two gateway processes', () => {
  let openai: FakeServer;
  /** Writes the config to Redis (as the operator would) and holds the bootstrap credentials. */
  let configSource: TestGateway;
  let proxy: RoundRobinProxy | undefined;
  const processes: GatewayProcess[] = [];
  const { promise: held, resolve: releaseHeld } = Promise.withResolvers<void>();
  let env: Record<string, string>;

  const startGateway = async () => {
    const started = await startGatewayProcess(env);
    processes.push(started);
    return started;
  };

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    servePacedCompletions(openai, held);
    env = {
      REDIS_URL: (redis as RedisServer).url,
      SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OPENAI_API_KEY: 'sk-platform',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      GATEWAY_CACHE: 'off',
      GATEWAY_SEMCACHE: 'off',
      SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_MS),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    };
    configSource = await startTestGateway(env);
  });

  afterAll(async () => {
    releaseHeld();
    await proxy?.close();
    await Promise.all(processes.map((process) => process.stop()));
    await configSource?.stop();
    await openai?.stop();
    await redis?.stop();
  });

  it('fails no request, and the stopped process exits 0 within drain + grace', async () => {
    const [first, second] = await Promise.all([startGateway(), startGateway()]);
    if (first === undefined || second === undefined) throw new Error('unreachable');
    proxy = await startRoundRobinProxy([first.url, second.url]);
    await Promise.all([proxy.inRotation(first.url), proxy.inRotation(second.url)]);

    const load = startSteadyLoad(proxy.url, configSource.credentials.apiKey, LOAD_CLIENTS);
    await load.whenSucceeded(60);
    expect(proxy.connectionsTo(first.url)).toBeGreaterThan(0);

    // A stream open on the first gateway across its whole shutdown (straight to it, not through the
    // proxy): the upstream holds it until the listener has closed.
    const heldStream = await fetch(`${first.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${configSource.credentials.apiKey}`,
      },
      body: JSON.stringify({
        model: 'openai/gpt-4o',
        stream: true,
        messages: [{ role: 'user', content: HELD }],
      }),
    });
    const reader = heldStream.body!.getReader();
    await reader.read();

    const signalled = Date.now();
    const exited = first.stop(DRAIN_MS + GRACE_MS + 5_000);
    await first.waitForOutput(SHUTDOWN_LOG.draining);
    // /readyz turned 503 and the proxy took the gateway out while it still accepts.
    await proxy.outOfRotation(first.url);
    expect(Date.now() - signalled).toBeLessThan(DRAIN_MS);

    const replacement = await startGateway();
    proxy.add(replacement.url);
    await proxy.inRotation(replacement.url);

    await first.waitForOutput(SHUTDOWN_LOG.closingListeners);
    releaseHeld();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(rest.endsWith('data: [DONE]\n\n')).toBe(true);

    expect(await exited, first.output()).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(DRAIN_MS + GRACE_MS);

    // The load goes on, through the second gateway and the replacement.
    await load.whenSucceeded(load.succeeded() + 100);
    const { succeeded, failures } = await load.stop();
    expect(failures).toEqual([]);
    expect(succeeded).toBeGreaterThanOrEqual(160);
    expect(proxy.connectionsTo(replacement.url)).toBeGreaterThan(0);
  }, 30_000);
});
