/**
 * The framework floor of `bench/throughput.ts` (side `floor`): the gateway's HTTP layers with none
 * of its logic, to split the gateway's cost into what its framework costs and what its own steps
 * cost. fastify with the gateway's options and its own plugins and hooks (CORS, drain, dialect,
 * the depth-checked JSON body parser, an onResponse hook counting the request in the gateway's
 * metrics), the client's abort watched, the parsed body re-serialised with the model replaced and
 * sent upstream through the gateway's UpstreamClient; a JSON answer read whole and parsed (as the
 * gateway reads its usage) and sent; an SSE answer written to the client chunk by chunk as it
 * comes, unparsed. No auth, routing, balance, cache, translation, accounting or access log.
 *
 * Run as a child: `node bench/framework-floor.ts <upstream origin>` prints one line `{"port":N}`
 * once listening and exits when its stdin closes (so it never outlives the bench process).
 */
import type { AddressInfo } from 'node:net';
import Fastify, { LogController } from 'fastify';
import { lazySchemaController } from '../src/config/fastify-schema-compilers.ts';
import { registerClientDialect } from '../src/gateway/client-dialect.ts';
import { registerCors } from '../src/gateway/cors.ts';
import { registerJsonBodyParser } from '../src/gateway/json-body.ts';
import { registerDrain } from '../src/observability/drain.ts';
import { createGatewayMetrics } from '../src/observability/metrics.ts';
import { UpstreamClient } from '../src/upstream/upstream-client.ts';

const upstream = process.argv[2];
if (upstream === undefined) {
  process.stderr.write('usage: node bench/framework-floor.ts <upstream origin> [port]\n');
  process.exit(2);
}

const client = new UpstreamClient({ connectMs: 10_000, headersMs: 300_000, bodyMs: 300_000 });
const metrics = createGatewayMetrics();
const app = Fastify({
  logController: new LogController({ disableRequestLogging: true }),
  bodyLimit: 4 * 1024 * 1024,
  return503OnClosing: false,
  forceCloseConnections: 'idle',
  keepAliveTimeout: 72_000,
  schemaController: lazySchemaController,
});
registerDrain(app);
registerClientDialect(app);
registerJsonBodyParser(app);
await registerCors(app, '*');

// A callback hook, as the gateway's.
app.addHook('onResponse', (request, reply, done) => {
  const route = request.routeOptions.url ?? '';
  metrics.requests.inc({ route, status: String(reply.raw.statusCode), provider: 'openai' });
  metrics.requestSeconds.observe({ route, provider: 'openai' }, reply.elapsedTime / 1000);
  done();
});

app.post('/v1/chat/completions', async (request, reply) => {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableEnded) abort.abort();
  });
  const body = request.body as Record<string, unknown>;
  const response = await client.send({
    provider: 'openai',
    url: `${upstream}/v1/chat/completions`,
    headers: { authorization: 'Bearer sk-bench' },
    body: JSON.stringify({ ...body, model: 'gpt-4o-mini' }),
    signal: abort.signal,
  });
  const contentType = String(response.headers['content-type'] ?? 'application/json');
  if (body.stream === true) {
    reply.hijack();
    reply.raw.writeHead(response.statusCode, { 'content-type': contentType, 'cache-control': 'no-cache' });
    for await (const chunk of response.body) reply.raw.write(chunk);
    reply.raw.end();
    return reply;
  }
  const text = await response.body.text();
  JSON.parse(text);
  return reply.code(response.statusCode).header('content-type', contentType).send(text);
});

const port = Number(process.argv[3] ?? 0);
await app.listen({ host: '127.0.0.1', port });
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as AddressInfo).port })}\n`);

// Exit with the parent: the bench keeps our stdin open for as long as it lives.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
