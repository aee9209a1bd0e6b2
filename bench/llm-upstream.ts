/**
 * A fake OpenAI upstream shaped like a model streaming tokens (`bench/llm-streams.ts`): every
 * `POST /v1/chat/completions` with `"stream": true` is answered with CHUNKS writes, one every
 * INTERVAL_MS, the first at once: each write one content chunk event, the last also the finish
 * chunk, the usage chunk (when the request has `include_usage`) and `data: [DONE]`. One timer per
 * stream, cleared when the connection closes early. Everything precomputed.
 *
 * Run as a child: `node bench/llm-upstream.ts [port]` prints one line `{"port":N}` once listening
 * and exits when its stdin closes (so it never outlives the bench process).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const CHUNKS = Number(process.env.BENCH_STREAM_CHUNKS ?? 20);
const INTERVAL_MS = Number(process.env.BENCH_STREAM_INTERVAL_MS ?? 100);

const MODEL = 'gpt-4o-mini';
const base = `"id":"chatcmpl-llm","object":"chat.completion.chunk","created":1700000000,"model":"${MODEL}","system_fingerprint":"fp_bench"`;
const event = (fields: string) => `data: {${base},${fields}}\n\n`;

/** Write `index` of a stream: about the size of one token's event from a real provider. */
function write(index: number, usage: boolean): Buffer {
  const delta = index === 0 ? '{"role":"assistant","content":"Hello"}' : `{"content":" token${index}"}`;
  let text = event(`"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":null}]`);
  if (index < CHUNKS - 1) return Buffer.from(text);
  text += event('"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]');
  if (usage)
    text += event(
      `"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":${CHUNKS},"total_tokens":${12 + CHUNKS}}`,
    );
  return Buffer.from(`${text}data: [DONE]\n\n`);
}

const withUsage = Array.from({ length: CHUNKS }, (_, index) => write(index, true));
const withoutUsage = Array.from({ length: CHUNKS }, (_, index) => write(index, false));
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

function stream(response: ServerResponse, writes: Buffer[]): void {
  response.writeHead(200, SSE_HEADERS);
  response.write(writes[0]);
  let next = 1;
  const timer = setInterval(() => {
    if (next === writes.length - 1) {
      clearInterval(timer);
      response.end(writes[next]);
      return;
    }
    response.write(writes[next++]);
  }, INTERVAL_MS);
  response.once('close', () => clearInterval(timer));
}

function answer(request: IncomingMessage, response: ServerResponse, body: string): void {
  if (
    request.method !== 'POST' ||
    request.url !== '/v1/chat/completions' ||
    !body.includes('"stream":true')
  ) {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no route"}}');
    return;
  }
  stream(response, body.includes('"include_usage":true') ? withUsage : withoutUsage);
}

const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => {
    body += chunk;
  });
  request.on('end', () => answer(request, response, body));
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 130_000;
server.maxConnections = 100_000;

const port = Number(process.argv[2] ?? 0);
server.listen({ port, host: '127.0.0.1', backlog: 8192 }, () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

// Exit with the parent: the bench keeps our stdin open for as long as it lives.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
