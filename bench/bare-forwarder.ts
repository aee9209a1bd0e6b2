/**
 * The bare forwarder of `bench/throughput.ts`: what a gateway is measured against. A plain
 * `node:http` server and one undici Pool to the fake upstream: it reads the request body, sends it
 * upstream unchanged (same path, `content-type` and a fixed upstream key) and pipes the answer back
 * (status, `content-type`, `content-length` when the upstream gave one, `cache-control`), JSON and SSE
 * alike (undici's `stream()` writes each upstream chunk to the response as it arrives). No auth, no
 * parsing, no logging, no metrics: the least work a forwarder in Node can do per request.
 *
 * Run as a child: `node bench/bare-forwarder.ts <upstream origin>` prints one line `{"port":N}` once
 * listening and exits when its stdin closes (so it never outlives the bench process).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Dispatcher, Pool } from 'undici';

const upstream = process.argv[2];
if (upstream === undefined) {
  process.stderr.write('usage: node bench/bare-forwarder.ts <upstream origin> [port]\n');
  process.exit(2);
}

/**
 * Connections to the upstream as the gateway's Agent allows (BENCH_BARE_CONNECTIONS, 128 unless told:
 * the figures of `throughput.ts` were taken so; `llm-streams.ts` sets it to GATEWAY_UPSTREAM_CONNECTIONS),
 * kept alive 30 s like the gateway's. HTTP/2 offered to a TLS upstream only with BENCH_BARE_HTTP2=on,
 * as the gateway's GATEWAY_UPSTREAM_HTTP2 (undici would offer it unless told not to).
 */
const http2 = process.env.BENCH_BARE_HTTP2 === 'on';
const pool = new Pool(upstream, {
  connections: Number(process.env.BENCH_BARE_CONNECTIONS ?? 128),
  pipelining: 1,
  keepAliveTimeout: 30_000,
  allowH2: http2,
  ...(http2 ? { h2Options: { maxConcurrentStreams: 100 } } : {}),
});

function forward(request: IncomingMessage, response: ServerResponse, body: Buffer): void {
  pool.stream(
    {
      path: request.url ?? '/',
      method: request.method === 'GET' ? 'GET' : 'POST',
      headers: {
        'content-type': request.headers['content-type'] ?? 'application/json',
        authorization: 'Bearer sk-bench',
      },
      body: body.length > 0 ? body : null,
    },
    ({ statusCode, headers }: Dispatcher.StreamFactoryData) => {
      const out: Record<string, string> = {};
      for (const name of ['content-type', 'content-length', 'cache-control'] as const) {
        const value = headers[name];
        if (typeof value === 'string') out[name] = value;
      }
      response.writeHead(statusCode, out);
      return response;
    },
    (error) => {
      if (error === null) return;
      if (!response.headersSent) {
        response.writeHead(502, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: error.message } }));
      } else response.destroy(error);
    },
  );
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () =>
    forward(request, response, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)),
  );
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 130_000;

const port = Number(process.argv[3] ?? 0);
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

// Exit with the parent: the bench keeps our stdin open for as long as it lives.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
