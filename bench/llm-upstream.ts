/**
 * A fake OpenAI upstream shaped like a model streaming tokens (`bench/llm-streams.ts`): every
 * `POST /v1/chat/completions` with `"stream": true` is answered with CHUNKS writes, one every
 * INTERVAL_MS, the first at once: each write one content chunk event, the last also the finish
 * chunk, the usage chunk (when the request has `include_usage`) and `data: [DONE]`. One timer per
 * stream, cleared when the connection closes early. Everything precomputed. `GET /connections`
 * answers how many connections it has accepted (`{"accepted":N}`), so that a segment's new ones
 * (with TLS, handshakes) can be counted.
 *
 * Run as a child: `node bench/llm-upstream.ts [port [key.pem cert.pem]]` prints one line
 * `{"port":N}` once listening and exits when its stdin closes (so it never outlives the bench
 * process). With a key and certificate it serves HTTPS offering h2 and http/1.1 in ALPN (node:http2
 * with `allowHTTP1`, as providers' front doors do: the client's offer decides); without, plain HTTP.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';

/** What the answer needs of a response, HTTP/1.1's or HTTP/2's (compatibility API). */
interface Answer {
  writeHead(statusCode: number, headers: Record<string, string>): unknown;
  write(chunk: Buffer): boolean;
  end(chunk: Buffer | string): unknown;
  once(event: 'close', listener: () => void): unknown;
}

/** What the answer needs of a request, HTTP/1.1's or HTTP/2's. */
interface Asked {
  method?: string | undefined;
  url?: string | undefined;
  setEncoding(encoding: 'utf8'): unknown;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
}

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

function stream(response: Answer, writes: Buffer[]): void {
  response.writeHead(200, SSE_HEADERS);
  response.write(writes[0]!);
  let next = 1;
  const timer = setInterval(() => {
    if (next === writes.length - 1) {
      clearInterval(timer);
      response.end(writes[next]!);
      return;
    }
    response.write(writes[next++]!);
  }, INTERVAL_MS);
  response.once('close', () => clearInterval(timer));
}

/** Connections accepted so far (TLS: handshakes), for `GET /connections`. */
let accepted = 0;

function answer(request: Asked, response: Answer, body: string): void {
  if (request.method === 'GET' && request.url === '/connections') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(`{"accepted":${accepted}}`);
    return;
  }
  if (
    request.method !== 'POST' ||
    request.url !== '/v1/chat/completions' ||
    !body.includes('"stream":true')
  ) {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end('{"error":{"message":"no route"}}');
    return;
  }
  stream(response, body.includes('"include_usage":true') ? withUsage : withoutUsage);
}

function serve(request: Asked, response: Answer): void {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => {
    body += chunk;
  });
  request.on('end', () => answer(request, response, body));
}

const [keyFile, certFile] = [process.argv[3], process.argv[4]];
const server =
  keyFile === undefined || certFile === undefined
    ? createServer(serve)
    : createSecureServer(
        { key: readFileSync(keyFile), cert: readFileSync(certFile), allowHTTP1: true },
        serve,
      );
// Idle connections kept longer than the clients keep theirs (the HTTP/1.1 fallback reads these too).
Object.assign(server, { keepAliveTimeout: 120_000, headersTimeout: 130_000 });
server.maxConnections = 100_000;
server.on(keyFile === undefined ? 'connection' : 'secureConnection', () => {
  accepted += 1;
});

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
