/**
 * A minimal, fast fake OpenAI upstream for benchmarks (plain node:http, keep-alive, everything
 * precomputed). `POST /v1/chat/completions` answers a fixed JSON completion, or with `"stream": true`
 * a fixed SSE body: 8 content chunks, the finish chunk, the usage chunk when the request has
 * `include_usage`, and `data: [DONE]`, written in STREAM_WRITES writes.
 *
 * Run as a child: `node bench/fake-upstream.ts [port]` prints one line `{"port":N}` once listening
 * and exits when its stdin closes (so it never outlives the bench process).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const MODEL = 'gpt-4o-mini';
const CREATED = 1_700_000_000;
/** How many writes one streamed response is split into (each a whole number of events). */
const STREAM_WRITES = 3;
const PIECES = ['Hello', ' from', ' the', ' fast', ' bench', ' upstream', ',', ' hi.'];

const completion = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: PIECES.join(''), refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: 12,
      completion_tokens: PIECES.length,
      total_tokens: 12 + PIECES.length,
      prompt_tokens_details: { cached_tokens: 0 },
    },
    system_fingerprint: 'fp_bench',
  }),
);

function streamEvents(includeUsage: boolean): string[] {
  const base = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    system_fingerprint: 'fp_bench',
  };
  const usageField = includeUsage ? { usage: null } : {};
  const chunks: unknown[] = [
    ...PIECES.map((piece, index) => ({
      ...base,
      choices: [
        {
          index: 0,
          delta: index === 0 ? { role: 'assistant', content: piece } : { content: piece },
          logprobs: null,
          finish_reason: null,
        },
      ],
      ...usageField,
    })),
    { ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], ...usageField },
  ];
  if (includeUsage) {
    chunks.push({
      ...base,
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: PIECES.length, total_tokens: 12 + PIECES.length },
    });
  }
  return [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), 'data: [DONE]\n\n'];
}

/** Splits the events into `writes` buffers of (nearly) equal event counts. */
function splitWrites(events: string[], writes: number): Buffer[] {
  const per = Math.ceil(events.length / writes);
  const parts: Buffer[] = [];
  for (let start = 0; start < events.length; start += per) {
    parts.push(Buffer.from(events.slice(start, start + per).join('')));
  }
  return parts;
}

const streamWithUsage = splitWrites(streamEvents(true), STREAM_WRITES);
const streamWithoutUsage = splitWrites(streamEvents(false), STREAM_WRITES);

const JSON_HEADERS = {
  'content-type': 'application/json',
  'content-length': String(completion.length),
};
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

function answer(request: IncomingMessage, response: ServerResponse, body: string): void {
  if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no route"}}');
    return;
  }
  // Substring checks instead of JSON.parse: the bench sends compact JSON it controls.
  if (body.includes('"stream":true')) {
    const parts = body.includes('"include_usage":true') ? streamWithUsage : streamWithoutUsage;
    response.writeHead(200, SSE_HEADERS);
    for (let index = 0; index < parts.length - 1; index++) response.write(parts[index]);
    response.end(parts[parts.length - 1]);
    return;
  }
  response.writeHead(200, JSON_HEADERS).end(completion);
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

const port = Number(process.argv[2] ?? 0);
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

// Exit with the parent: the bench keeps our stdin open for as long as it lives.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
