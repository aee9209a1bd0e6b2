/**
 * The shutdown's steps, seen from outside: a real gateway process (`node src/main/cli.ts gateway`)
 * on SIGTERM turns /readyz to 503 at once, keeps accepting and serving through its drain delay
 * (asking clients to close their connections), then closes its listener and its idle keep-alive
 * connections, lets a stream in flight finish and exits 0 before the grace period ends, or 1 when
 * it ends first. And standalone drains both of its listeners, the control plane's too.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Agent, type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHUTDOWN_LOG } from '../../../src/main/lifecycle.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { startGatewayProcess } from '../../helpers/gateway-process.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis = await startRedisServer();

const DRAIN_MS = 2_000;
const GRACE_MS = 3_000;

const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'openai/gpt-4o',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;

/** The next upstream request streams "one", then waits for `release` before "two" and [DONE]. */
function holdNextStream(openai: FakeServer): () => void {
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  openai.overrideNext(async (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(chunk('one'));
    await released;
    response.write(chunk('two'));
    response.end('data: [DONE]\n\n');
  });
  return release;
}

/** Opens a stream through the gateway and reads its first event; `rest()` reads it to the end. */
async function openStream(url: string, apiKey: string): Promise<{ rest(): Promise<string> }> {
  const response = await postJson(`${url}/v1/chat/completions`, chat({ stream: true }), apiKey);
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  await reader.read();
  return {
    async rest() {
      let text = '';
      for (let next = await reader.read(); !next.done; next = await reader.read())
        text += new TextDecoder().decode(next.value);
      return text;
    },
  };
}

/** A keep-alive connection that made one request and now sits idle. */
async function openIdleConnection(url: string): Promise<{ closed: Promise<void>; isClosed(): boolean }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  let received = '';
  let closed = false;
  const closedPromise = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve) => {
    socket.on('data', (data: Buffer) => {
      received += data.toString('utf8');
      if (received.includes('{"status":"ok"}')) resolve();
    });
  });
  expect(received.toLowerCase()).toContain('connection: keep-alive');
  return { closed: closedPromise, isClosed: () => closed };
}

/** A completion from a keep-alive client (which asks to keep the connection), with the response headers. */
async function postKeepAlive(
  url: string,
  apiKey: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const agent = new Agent({ keepAlive: true });
  try {
    const call = request(`${url}/v1/chat/completions`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    });
    call.end(JSON.stringify(chat()));
    const [response] = (await once(call, 'response')) as [IncomingMessage];
    let body = '';
    for await (const data of response) body += (data as Buffer).toString('utf8');
    return { status: response.statusCode ?? 0, headers: response.headers, body };
  } finally {
    agent.destroy();
  }
}

describe.runIf(redis !== undefined)('a gateway process on SIGTERM', () => {
  let openai: FakeServer;
  let configSource: TestGateway;
  let env: Record<string, string>;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
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
    // Writes the config to Redis, as the operator would, and holds the bootstrap credentials.
    configSource = await startTestGateway(env);
  });

  afterAll(async () => {
    await configSource?.stop();
    await openai?.stop();
    await redis?.stop();
  });

  it('answers /readyz 503 at once, serves through the drain, closes idle connections, finishes a stream and exits 0', async () => {
    const apiKey = configSource.credentials.apiKey;
    const gateway = await startGatewayProcess(env);
    const release = holdNextStream(openai);
    try {
      const idle = await openIdleConnection(gateway.url);
      const stream = await openStream(gateway.url, apiKey);

      const signalled = Date.now();
      const exited = gateway.stop(DRAIN_MS + GRACE_MS + 5_000);
      await gateway.waitForOutput(SHUTDOWN_LOG.draining);
      const readiness = await fetch(`${gateway.url}/readyz`);
      expect(readiness.status).toBe(503);
      expect(await readiness.json()).toEqual({ status: 'draining' });
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);

      // Still accepting and serving, and telling keep-alive clients to reconnect (elsewhere).
      const served = await postKeepAlive(gateway.url, apiKey);
      expect(served.status).toBe(200);
      expect(served.headers.connection).toBe('close');
      expect(JSON.parse(served.body).choices[0].message.content).toBeTypeOf('string');
      expect(idle.isClosed()).toBe(false);
      expect(Date.now() - signalled).toBeLessThan(DRAIN_MS);

      // The drain delay is over: the listener closes, and with it the idle connection, at once,
      // while the stream is still open.
      await gateway.waitForOutput(SHUTDOWN_LOG.closingListeners);
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(DRAIN_MS);
      await idle.closed;
      await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();

      release();
      const rest = await stream.rest();
      expect(rest).toContain('"two"');
      expect(rest).toContain('[DONE]');
      expect(await exited, gateway.output()).toEqual({ code: 0, signal: null });
      expect(Date.now() - signalled).toBeLessThan(DRAIN_MS + GRACE_MS);
      expect(gateway.output()).toContain(SHUTDOWN_LOG.stopped);
    } finally {
      release();
      await gateway.stop();
    }
  });

  it('exits 1 with a warning when the grace period ends with a stream still open', async () => {
    const gateway = await startGatewayProcess({
      ...env,
      SHUTDOWN_DRAIN_DELAY_MS: '100',
      SHUTDOWN_GRACE_MS: '500',
    });
    const release = holdNextStream(openai);
    try {
      await openStream(gateway.url, configSource.credentials.apiKey);
      const signalled = Date.now();
      const status = await gateway.stop(10_000);
      expect(status, gateway.output()).toEqual({ code: 1, signal: null });
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(600);
      expect(gateway.output()).toContain(SHUTDOWN_LOG.graceOver);
    } finally {
      release();
    }
  });
});

describe('standalone draining', () => {
  let openai: FakeServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    gateway = await startTestGateway({ OPENAI_API_KEY: 'sk-platform', OPENAI_BASE_URL: `${openai.url}/v1` });
  });
  afterAll(async () => {
    await gateway?.stop();
    await openai?.stop();
  });

  it("turns both listeners' /readyz to 503 and keeps serving with connection: close", async () => {
    for (const url of [gateway.url, gateway.controlUrl]) {
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    }
    gateway.running.beginDrain();
    for (const url of [gateway.url, gateway.controlUrl]) {
      const readiness = await fetch(`${url}/readyz`);
      expect(readiness.status).toBe(503);
      expect(await readiness.json()).toEqual({ status: 'draining' });
      // Alive all the same: the kubelet must not restart a draining process.
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    }
    const served = await postKeepAlive(gateway.url, gateway.credentials.apiKey);
    expect(served.status).toBe(200);
    expect(served.headers.connection).toBe('close');
  });
});
