/**
 * One fake upstream for every provider at once, that answers every request 200 at once, in the
 * shape its path asks for (OpenAI chat and embeddings, Anthropic messages and count_tokens, Gemini
 * and Vertex generate-content, Bedrock Converse, a Google token grant), whatever the body holds.
 * The fuzz suites point every provider at it, so that a 5xx from the gateway can only be the
 * gateway's own. It never reads a field it has not checked: a fuzzed body cannot make it fail.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicMessage, anthropicStreamEvents } from './fake-anthropic.ts';
import { converseAnswer, converseStreamFrames, encodeFrame } from './fake-bedrock.ts';
import { openAiCompletion, openAiStreamEvents, STREAM_PIECES } from './fake-openai.ts';

type Answer = (response: ServerResponse, body: Record<string, unknown>) => void;

const send = (response: ServerResponse, contentType: string, text: string | Uint8Array) => {
  response.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  response.end(text);
};
const json = (response: ServerResponse, value: unknown) =>
  send(response, 'application/json', JSON.stringify(value));
const sse = (response: ServerResponse, events: string[]) =>
  send(response, 'text/event-stream', events.join(''));

function modelOf(body: Record<string, unknown>): string {
  return typeof body.model === 'string' ? body.model : 'fake-model';
}

function countOf(value: unknown): number {
  return Array.isArray(value) ? Math.max(1, value.length) : 1;
}

const GEMINI_USAGE = { promptTokenCount: 9, candidatesTokenCount: 7, totalTokenCount: 16 };
const geminiCandidate = (text: string, last: boolean) => ({
  candidates: [
    { content: { role: 'model', parts: [{ text }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) },
  ],
  ...(last ? { usageMetadata: GEMINI_USAGE } : {}),
  modelVersion: 'gemini-2.5-flash',
});

/** By path suffix, first match wins. */
const ANSWERS: ReadonlyArray<readonly [(path: string) => boolean, Answer]> = [
  [
    (path) => path.endsWith('/chat/completions'),
    (response, body) =>
      body.stream === true
        ? sse(
            response,
            openAiStreamEvents(
              modelOf(body),
              STREAM_PIECES,
              (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true,
            ),
          )
        : json(response, openAiCompletion(modelOf(body))),
  ],
  [
    (path) => path.endsWith('/embeddings'),
    (response, body) =>
      json(response, {
        object: 'list',
        data: Array.from({ length: countOf(body.input) }, (_item, index) => ({
          object: 'embedding',
          index,
          embedding: [0.1, 0.2, 0.3],
        })),
        model: modelOf(body),
        usage: { prompt_tokens: 5, total_tokens: 5 },
      }),
  ],
  [(path) => path.endsWith('/count_tokens'), (response) => json(response, { input_tokens: 42 })],
  [
    (path) => path.endsWith('/messages') || path.endsWith(':rawPredict'),
    (response, body) =>
      body.stream === true
        ? sse(response, anthropicStreamEvents(modelOf(body), ['Hello', '.']))
        : json(response, anthropicMessage(modelOf(body))),
  ],
  [
    (path) => path.endsWith(':streamRawPredict'),
    (response, body) => sse(response, anthropicStreamEvents(modelOf(body), ['Hello', '.'])),
  ],
  [
    (path) => path.endsWith(':streamGenerateContent'),
    (response) =>
      sse(
        response,
        [geminiCandidate('Hello', false), geminiCandidate(' there.', true)].map(
          (chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`,
        ),
      ),
  ],
  [(path) => path.endsWith(':generateContent'), (response) => json(response, geminiCandidate('Hi.', true))],
  [
    (path) => path.endsWith(':embedContent'),
    (response) => json(response, { embedding: { values: [0.1, 0.2, 0.3] } }),
  ],
  [
    (path) => path.endsWith(':batchEmbedContents'),
    (response, body) =>
      json(response, {
        embeddings: Array.from({ length: countOf(body.requests) }, () => ({ values: [0.1, 0.2, 0.3] })),
      }),
  ],
  [
    (path) => path.endsWith('/converse-stream'),
    (response) =>
      send(
        response,
        'application/vnd.amazon.eventstream',
        Buffer.concat(converseStreamFrames({}).map(encodeFrame)),
      ),
  ],
  [(path) => path.endsWith('/converse'), (response) => json(response, converseAnswer({}))],
  [
    (path) => path.endsWith('/token'),
    (response) => json(response, { access_token: 'ya29.fake', expires_in: 3600, token_type: 'Bearer' }),
  ],
  [
    (path) => path.endsWith('/models'),
    (response) => json(response, { object: 'list', data: [{ id: 'gpt-4o', object: 'model' }] }),
  ],
];

export class FakeAnyUpstream {
  /** Requests received, by path (query left out). */
  readonly received: string[] = [];
  readonly #server: Server;
  url = '';

  constructor() {
    this.#server = createServer((request, response) => void this.#handle(request, response));
  }

  async start(): Promise<this> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
        body = parsed as Record<string, unknown>;
    } catch {
      // Not JSON (a form-encoded token grant, say): answered by path alone.
    }
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    this.received.push(path);
    const answer = ANSWERS.find(([matches]) => matches(path))?.[1];
    if (answer === undefined) json(response, {});
    else answer(response, body);
  }
}

export async function startFakeAnyUpstream(): Promise<FakeAnyUpstream> {
  return new FakeAnyUpstream().start();
}
