/**
 * One fast fake upstream speaking three providers' streaming shapes, for `bench/translation.ts`.
 * Every answer carries the same text, cut into the same deltas:
 *
 * - `POST /v1/chat/completions`: OpenAI `chat.completion.chunk` SSE (role chunk, one chunk per
 *   delta, finish chunk, the usage chunk when the request has `include_usage`, `data: [DONE]`);
 * - `POST /v1/messages`: Anthropic Messages SSE (`event: …\ndata: …`: message_start,
 *   content_block_start, ping, one content_block_delta per delta, content_block_stop,
 *   message_delta with usage, message_stop);
 * - `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`: Gemini, one
 *   GenerateContentResponse per delta as `data: {…}\r\n\r\n` (usageMetadata on each, finishReason
 *   on the last), no end marker.
 *
 * The events are precomputed and written in `writes` writes with a `setImmediate` between them
 * (promptly, but as separate socket writes, so a reader sees several chunks); each write holds a
 * whole number of events and the same number of deltas in every shape.
 *
 * Run as a child: `node bench/fake-providers.ts <deltas> <writes>` prints one line `{"port":N}` once
 * listening on 127.0.0.1 and exits when its stdin closes (so it never outlives the bench). The
 * builders are exported for the in-process part of the bench.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export type Shape = 'openai' | 'anthropic' | 'gemini';

const CREATED = 1_700_000_000;
const OPENAI_MODEL = 'gpt-4o-mini-2024-07-18';
const ANTHROPIC_MODEL = 'claude-sonnet-4-5-20250929';
const GEMINI_MODEL = 'gemini-2.5-flash';
const PROMPT_TOKENS = 31;

/** Token-sized pieces (1–2 tokens each), with some multi-byte UTF-8 as in real answers. */
const WORDS = [
  'Go',
  'ûtez',
  ' la',
  ' tarte',
  ' aux',
  ' pral',
  'ines',
  ':',
  ' une',
  ' spécial',
  'ité',
  ' lyonn',
  'aise',
  ' d’un',
  ' rose',
  ' écl',
  'atant',
  ' 🍰',
  ' —',
  ' and',
  ' for',
  ' the',
  ' tea',
  ',',
  ' a',
  ' sen',
  'cha',
  ' 日本',
  '茶',
  '.',
  '\n\n',
  'The',
  ' crust',
  ' should',
  ' crack',
  ' under',
  ' a',
  ' spoon',
  ';',
  ' serve',
  ' it',
  ' cold',
  '.',
];

/** The answer's deltas: `count` pieces, the same for every shape. */
export function deltaTexts(count: number): string[] {
  return Array.from({ length: count }, (_, index) => WORDS[index % WORDS.length]!);
}

/** A stream in one shape: events before the deltas, one or more events per delta, events after. */
export interface ShapedStream {
  head: string[];
  /** `deltas[i]`: the event text carrying delta i. */
  deltas: string[];
  tail: string[];
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const sseNamed = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** OpenAI chat-completion chunks as api.openai.com streams them (`usage: null` when usage was asked). */
export function openAiStream(pieces: string[], includeUsage: boolean): ShapedStream {
  const base = {
    id: 'chatcmpl-CBenchTranslation0000000000000',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: OPENAI_MODEL,
    service_tier: 'default',
    system_fingerprint: 'fp_560af6e559',
  };
  const usageField = includeUsage ? { usage: null } : {};
  const chunk = (delta: unknown, finishReason: string | null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...usageField,
  });
  const tail = [sse(chunk({}, 'stop'))];
  if (includeUsage) {
    tail.push(
      sse({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: PROMPT_TOKENS,
          completion_tokens: pieces.length,
          total_tokens: PROMPT_TOKENS + pieces.length,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
      }),
    );
  }
  tail.push('data: [DONE]\n\n');
  return {
    head: [sse(chunk({ role: 'assistant', content: '', refusal: null }, null))],
    deltas: pieces.map((text) => sse(chunk({ content: text }, null))),
    tail,
  };
}

/** Anthropic Messages events, as in the recorded fixtures (src/translate/openai-to-anthropic/__fixtures__). */
export function anthropicStream(pieces: string[]): ShapedStream {
  const usage = {
    input_tokens: PROMPT_TOKENS,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: 1,
    service_tier: 'standard',
  };
  return {
    head: [
      sseNamed('message_start', {
        type: 'message_start',
        message: {
          model: ANTHROPIC_MODEL,
          id: 'msg_01BenchTranslation00000000',
          type: 'message',
          role: 'assistant',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      }),
      sseNamed('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      }),
      sseNamed('ping', { type: 'ping' }),
    ],
    deltas: pieces.map((text) =>
      sseNamed('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      }),
    ),
    tail: [
      sseNamed('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sseNamed('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: {
          input_tokens: PROMPT_TOKENS,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: pieces.length,
        },
      }),
      sseNamed('message_stop', { type: 'message_stop' }),
    ],
  };
}

/** Gemini streamGenerateContent?alt=sse, as in the recorded fixtures (CRLF event separators). */
export function geminiStream(pieces: string[]): ShapedStream {
  const usage = {
    promptTokenCount: PROMPT_TOKENS,
    totalTokenCount: PROMPT_TOKENS,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: PROMPT_TOKENS }],
  };
  const finalUsage = {
    promptTokenCount: PROMPT_TOKENS,
    candidatesTokenCount: pieces.length,
    totalTokenCount: PROMPT_TOKENS + pieces.length,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: PROMPT_TOKENS }],
  };
  const last = pieces.length - 1;
  return {
    head: [],
    deltas: pieces.map(
      (text, index) =>
        `data: ${JSON.stringify({
          candidates: [
            {
              content: { parts: [{ text }], role: 'model' },
              ...(index === last ? { finishReason: 'STOP' } : {}),
              index: 0,
            },
          ],
          usageMetadata: index === last ? finalUsage : usage,
          modelVersion: GEMINI_MODEL,
          responseId: 'tIOOaJKHKbKfnsEPnPfg-Qs',
        })}\r\n\r\n`,
    ),
    tail: [],
  };
}

/** All the events in order, one string each. */
export function allEvents(stream: ShapedStream): string[] {
  return [...stream.head, ...stream.deltas, ...stream.tail];
}

/**
 * The stream as `writes` buffers: the deltas split evenly (by count), the head events in the first
 * write and the tail events in the last.
 */
export function splitWrites(stream: ShapedStream, writes: number): Buffer[] {
  const count = Math.max(1, Math.min(writes, stream.deltas.length));
  const parts: Buffer[] = [];
  for (let write = 0; write < count; write++) {
    const from = Math.floor((write * stream.deltas.length) / count);
    const to = Math.floor(((write + 1) * stream.deltas.length) / count);
    const events = stream.deltas.slice(from, to);
    if (write === 0) events.unshift(...stream.head);
    if (write === count - 1) events.push(...stream.tail);
    parts.push(Buffer.from(events.join('')));
  }
  return parts;
}

// ---------------------------------------------------------------------------------------------
// The server (only when run as a script).

function serve(deltas: number, writes: number): void {
  const pieces = deltaTexts(deltas);
  const bodies = {
    openaiUsage: splitWrites(openAiStream(pieces, true), writes),
    openai: splitWrites(openAiStream(pieces, false), writes),
    anthropic: splitWrites(anthropicStream(pieces), writes),
    gemini: splitWrites(geminiStream(pieces), writes),
  };
  const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
  const GEMINI_HEADERS = {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  };

  const reject = (response: ServerResponse, status: number, message: string) => {
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message } }));
  };

  const stream = (response: ServerResponse, headers: Record<string, string>, parts: Buffer[]) => {
    response.writeHead(200, headers);
    let index = 0;
    const next = () => {
      if (response.destroyed) return;
      if (index === parts.length - 1) {
        response.end(parts[index]);
        return;
      }
      response.write(parts[index++]);
      setImmediate(next);
    };
    next();
  };

  // Substring checks instead of JSON.parse: enough to see that the gateway sent each shape's request.
  const answer = (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = request.url ?? '';
    if (request.method !== 'POST') return reject(response, 405, 'POST only');
    if (url === '/v1/chat/completions') {
      if (request.headers.authorization === undefined) return reject(response, 401, 'no authorization');
      if (!body.includes('"stream":true')) return reject(response, 400, 'this fake only streams');
      return stream(
        response,
        SSE_HEADERS,
        body.includes('"include_usage":true') ? bodies.openaiUsage : bodies.openai,
      );
    }
    if (url === '/v1/messages') {
      if (request.headers['x-api-key'] === undefined || request.headers['anthropic-version'] === undefined)
        return reject(response, 401, 'missing x-api-key or anthropic-version');
      if (!body.includes('"stream":true') || !body.includes('"max_tokens"'))
        return reject(response, 400, 'expected a streamed Messages request');
      return stream(response, SSE_HEADERS, bodies.anthropic);
    }
    if (url.startsWith('/v1beta/models/') && url.endsWith(':streamGenerateContent?alt=sse')) {
      if (request.headers['x-goog-api-key'] === undefined) return reject(response, 400, 'API key not valid');
      if (!body.includes('"contents"')) return reject(response, 400, 'expected a generateContent request');
      return stream(response, GEMINI_HEADERS, bodies.gemini);
    }
    reject(response, 404, 'no route');
  };

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
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });

  // Exit with the parent: the bench keeps our stdin open for as long as it lives.
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  serve(Number(process.argv[2] ?? 64), Number(process.argv[3] ?? 8));
}
