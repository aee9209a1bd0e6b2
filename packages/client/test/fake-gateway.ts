/**
 * A local HTTP server that answers like the gateway: its routes' bodies, its routing, balance and
 * cache headers, its error envelope. It records every request; `next()` replaces the answer to the
 * next request, for errors and odd answers.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
  rawBody: string;
}

export type Answer = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export const REPLY = 'Hello from the fake gateway.';
export const STREAM_PIECES = ['Hello', ' from', ' the', ' stream', '.'];

/** The routing headers the gateway sends for a model name. */
export function routingHeadersFor(model: unknown): Record<string, string> {
  if (typeof model === 'string' && model.startsWith('@')) {
    const slug = model.slice(1).split('/', 1)[0] ?? '';
    return {
      'x-service-byok': 'true',
      'x-service-credential-id': `default/${slug}`,
      'x-service-credential-slug': slug,
      'x-service-credential-label': slug,
    };
  }
  return { 'x-service-byok': 'false' };
}

export function balanceHeaders(charged: string): Record<string, string> {
  return {
    'x-service-balance-mode': 'prepaid',
    'x-service-balance-charged-micros': charged,
    'x-service-balance-remaining-micros': '99999000',
    'x-service-balance-currency': 'USD',
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

export async function sendSse(
  response: ServerResponse,
  events: string[],
  headers: Record<string, string> = {},
): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  for (const event of events) {
    response.write(event);
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

function chatCompletion(model: string) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
  };
}

export function chatChunks(model: string): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return [
    chunk({ role: 'assistant', content: '' }, null),
    ...STREAM_PIECES.map((piece) => chunk({ content: piece }, null)),
    chunk({}, 'stop'),
    'data: [DONE]\n\n',
  ];
}

function anthropicMessage(model: string) {
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: REPLY }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 6 },
  };
}

export function messageEvents(model: string): string[] {
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return [
    event('message_start', { message: { ...anthropicMessage(model), content: [], stop_reason: null } }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    event('ping', {}),
    ...STREAM_PIECES.map((text) =>
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
    ),
    event('content_block_stop', { index: 0 }),
    event('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 6 },
    }),
    event('message_stop', {}),
  ];
}

/** What the gateway answers by default, per route. */
const defaultAnswer: Answer = async (request, response) => {
  const model = typeof request.body?.model === 'string' ? request.body.model : 'unknown';
  const stream = request.body?.stream === true;
  const headers = {
    ...routingHeadersFor(request.body?.model),
    ...balanceHeaders(stream ? 'deferred' : '1500'),
  };
  const route = `${request.method} ${request.path.split('?')[0]}`;
  switch (route) {
    case 'POST /v1/chat/completions':
      if (stream) return sendSse(response, chatChunks(model), headers);
      return sendJson(response, 200, chatCompletion(model), headers);
    case 'POST /v1/messages':
      if (stream) return sendSse(response, messageEvents(model), headers);
      return sendJson(response, 200, anthropicMessage(model), headers);
    case 'POST /v1/embeddings':
      return sendJson(
        response,
        200,
        { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] }], model },
        headers,
      );
    case 'POST /v1/messages/count_tokens':
      return sendJson(response, 200, { input_tokens: 42 }, routingHeadersFor(request.body?.model));
    case 'GET /v1/models':
      return sendJson(response, 200, {
        object: 'list',
        data: [
          { id: 'openai/gpt-4o', object: 'model', created: 1_700_000_000, owned_by: 'openai' },
          {
            id: 'anthropic/claude-3-5-haiku',
            object: 'model',
            created: 1_700_000_000,
            owned_by: 'anthropic',
          },
        ],
      });
    default:
      return sendJson(response, 404, {
        error: { code: 'not_found', message: `no route ${route}`, type: 'not_found_error' },
      });
  }
};

export class FakeGateway {
  readonly requests: RecordedRequest[] = [];
  readonly #answers: Answer[] = [];
  readonly #server: Server;
  url = '';

  constructor() {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        let body: Record<string, unknown> | undefined;
        try {
          body = rawBody === '' ? undefined : (JSON.parse(rawBody) as Record<string, unknown>);
        } catch {
          body = undefined;
        }
        const recorded = {
          method: request.method ?? 'GET',
          path: request.url ?? '/',
          headers: request.headers,
          body,
          rawBody,
        };
        this.requests.push(recorded);
        void (this.#answers.shift() ?? defaultAnswer)(recorded, response);
      });
    });
  }

  /** The next request gets this answer instead of the default. */
  next(answer: Answer): this {
    this.#answers.push(answer);
    return this;
  }

  last(): RecordedRequest {
    const request = this.requests.at(-1);
    if (request === undefined) throw new Error('the fake gateway received no request');
    return request;
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
}

export async function startFakeGateway(): Promise<FakeGateway> {
  return new FakeGateway().start();
}
