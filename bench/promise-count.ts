/**
 * Promises per cache miss: counts the PROMISE inits an async hook sees while the gateway (memory
 * stores, in-process, listening on loopback) answers N sequential misses, JSON and SSE, from the
 * bench's fake upstream in a child process. The client is node:http with callbacks, so the count is
 * the gateway's own (fastify, undici and the request path). Not a load test: a few seconds.
 *
 *   node bench/promise-count.ts [requests per kind, default 1000]
 */
import { createHook } from 'node:async_hooks';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startInjectGateway } from '../test/helpers/inject-gateway.ts';
import { startFake } from './harness.ts';

const count = Number(process.argv[2] ?? 1000);
const fake = await startFake();
const gateway = await startInjectGateway({ OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: `${fake.url}/v1` });
await gateway.app.listen({ host: '127.0.0.1', port: 0 });
const { port } = gateway.app.server.address() as AddressInfo;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function post(body: string): Promise<void> {
  return new Promise((done, fail) => {
    const sent = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      },
      (response) => {
        if (response.statusCode !== 200) fail(new Error(`status ${response.statusCode}`));
        response.resume();
        response.on('end', done);
      },
    );
    sent.on('error', fail);
    sent.end(body);
  });
}

let promises = 0;
const hook = createHook({
  init(_id, type) {
    if (type === 'PROMISE') promises += 1;
  },
});

let serial = 0;
const bodyOf = (stream: boolean) =>
  JSON.stringify({
    model: 'gpt-4o-mini',
    stream,
    messages: [{ role: 'user', content: `question ${serial++} ${process.pid}` }],
  });

for (const stream of [false, true]) {
  for (let index = 0; index < 50; index += 1) await post(bodyOf(stream));
  promises = 0;
  hook.enable();
  for (let index = 0; index < count; index += 1) await post(bodyOf(stream));
  hook.disable();
  // The loop's own awaits (one promise per request, and the post's) are the client's.
  process.stdout.write(`${stream ? 'SSE ' : 'JSON'} miss: ${(promises / count).toFixed(1)} promises\n`);
}
agent.destroy();
await gateway.close();
process.exit(0);
