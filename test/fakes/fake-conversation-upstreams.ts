/**
 * Fake upstreams that answer from what they were sent, for the Responses API suites: an
 * Anthropic Messages and a Gemini generate-content upstream that repeat every user text they
 * received (so a test sees the whole conversation arrived), call `get_weather` when it is offered
 * and not yet answered, and read its result back once it is; and an OpenAI upstream that serves
 * the Responses API itself (create, stream, retrieve, delete), keeping what it created.
 */
import type { ServerResponse } from 'node:http';
import { FakeServer, sendJson, sendSse } from './fake-server.ts';

type Json = Record<string, unknown>;

/** The fake's answer: text, or one call of get_weather. */
type Reply = { kind: 'text'; text: string } | { kind: 'tool'; name: string; args: Json };

/** What every conversational fake says: the user texts it received, in order. */
export const heard = (texts: string[]): string => `Heard: ${texts.join(' | ')}`;
export const WEATHER_RESULT_PREFIX = 'The weather tool said: ';

function decide(userTexts: string[], toolResult: string | undefined, offersWeather: boolean): Reply {
  if (toolResult !== undefined) return { kind: 'text', text: `${WEATHER_RESULT_PREFIX}${toolResult}` };
  if (offersWeather) return { kind: 'tool', name: 'get_weather', args: { city: 'Paris' } };
  return { kind: 'text', text: heard(userTexts) };
}

/** Splits a text in two pieces, so that a stream carries more than one delta. */
const halves = (text: string): string[] => [
  text.slice(0, Math.ceil(text.length / 2)),
  text.slice(Math.ceil(text.length / 2)),
];

// Anthropic Messages.

function anthropicReply(body: Json): Reply {
  const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const texts: string[] = [];
  for (const message of messages) {
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') texts.push(message.content);
    else
      for (const block of message.content as Json[])
        if (block.type === 'text') texts.push(String(block.text));
  }
  const last = messages.at(-1);
  const result = Array.isArray(last?.content)
    ? (last.content as Json[]).find((block) => block.type === 'tool_result')
    : undefined;
  const resultText =
    result === undefined
      ? undefined
      : typeof result.content === 'string'
        ? result.content
        : (result.content as Json[]).map((block) => String(block.text ?? '')).join('');
  const tools = (body.tools ?? []) as Json[];
  return decide(
    texts,
    resultText,
    tools.some((tool) => tool.name === 'get_weather'),
  );
}

function anthropicEvents(model: string, reply: Reply): string[] {
  const event = (type: string, data: Json) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const usage = { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const block =
    reply.kind === 'text'
      ? [
          event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
          ...halves(reply.text).map((text) =>
            event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
          ),
        ]
      : [
          event('content_block_start', {
            index: 0,
            content_block: { type: 'tool_use', id: 'toolu_weather01', name: reply.name, input: {} },
          }),
          ...halves(JSON.stringify(reply.args)).map((partial_json) =>
            event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json } }),
          ),
        ];
  return [
    event('message_start', {
      message: {
        id: 'msg_fake01',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    ...block,
    event('content_block_stop', { index: 0 }),
    event('message_delta', {
      delta: { stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null },
      usage: { output_tokens: 9 },
    }),
    event('message_stop', {}),
  ];
}

export async function startConversationalAnthropic(): Promise<FakeServer> {
  const server = new FakeServer();
  server.route('POST', '/v1/messages', async (request, response) => {
    const body = request.body as Json;
    const model = String(body.model);
    const reply = anthropicReply(body);
    if (body.stream === true) return sendSse(response, anthropicEvents(model, reply));
    sendJson(response, 200, {
      id: 'msg_fake01',
      type: 'message',
      role: 'assistant',
      model,
      content:
        reply.kind === 'text'
          ? [{ type: 'text', text: reply.text }]
          : [{ type: 'tool_use', id: 'toolu_weather01', name: reply.name, input: reply.args }],
      stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 9,
      },
    });
  });
  return server.start();
}

// Gemini generate-content.

function geminiReply(body: Json): Reply {
  const contents = (body.contents ?? []) as Array<{ role: string; parts: Json[] }>;
  const texts = contents
    .filter((content) => content.role === 'user')
    .flatMap((content) =>
      content.parts.filter((part) => typeof part.text === 'string').map((part) => String(part.text)),
    );
  const response = contents.at(-1)?.parts.find((part) => part.functionResponse !== undefined)
    ?.functionResponse as { response?: { content?: unknown } } | undefined;
  const declarations = ((body.tools ?? []) as Array<{ functionDeclarations?: Json[] }>).flatMap(
    (tool) => tool.functionDeclarations ?? [],
  );
  return decide(
    texts,
    response === undefined
      ? undefined
      : String(response.response?.content ?? JSON.stringify(response.response)),
    declarations.some((declaration) => declaration.name === 'get_weather'),
  );
}

const GEMINI_USAGE = { promptTokenCount: 20, candidatesTokenCount: 9, totalTokenCount: 29 };

function geminiCandidate(parts: Json[], finishReason?: string): Json {
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        index: 0,
        ...(finishReason === undefined ? {} : { finishReason }),
      },
    ],
    modelVersion: 'gemini-2.5-flash',
    responseId: 'gemini-fake-01',
  };
}

function geminiParts(reply: Reply): Json[] {
  return reply.kind === 'text'
    ? [{ text: reply.text }]
    : [{ functionCall: { name: reply.name, args: reply.args } }];
}

export async function startConversationalGemini(model: string): Promise<FakeServer> {
  const server = new FakeServer();
  server.route('POST', `/v1beta/models/${model}:generateContent`, (request, response) => {
    sendJson(response, 200, {
      ...geminiCandidate(geminiParts(geminiReply(request.body as Json)), 'STOP'),
      usageMetadata: GEMINI_USAGE,
    });
  });
  server.route('POST', `/v1beta/models/${model}:streamGenerateContent`, async (request, response) => {
    const reply = geminiReply(request.body as Json);
    const chunks =
      reply.kind === 'text'
        ? halves(reply.text).map((text, index) => ({
            ...geminiCandidate([{ text }], index === 1 ? 'STOP' : undefined),
            usageMetadata: GEMINI_USAGE,
          }))
        : [{ ...geminiCandidate(geminiParts(reply), 'STOP'), usageMetadata: GEMINI_USAGE }];
    await sendSse(
      response,
      chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`),
    );
  });
  return server.start();
}

// OpenAI's own Responses API.

export const OPENAI_RESPONSES_REPLY = 'Hello from the fake OpenAI Responses API.';

/** A fake OpenAI that serves the Responses API: the responses it created can be read and deleted. */
export async function startFakeOpenAiResponses(): Promise<FakeServer & { created: Map<string, Json> }> {
  const server = new FakeServer() as FakeServer & { created: Map<string, Json> };
  server.created = new Map();
  let next = 0;
  const remember = (response: Json) => {
    const id = String(response.id);
    server.created.set(id, response);
    server.route('GET', `/v1/responses/${id}`, (_request, reply) => {
      const kept = server.created.get(id);
      if (kept === undefined) return notFound(reply, id);
      sendJson(reply, 200, kept);
    });
    server.route('POST', `/v1/responses/${id}/cancel`, (_request, reply) => {
      const kept = server.created.get(id);
      if (kept === undefined) return notFound(reply, id);
      kept.status = 'cancelled';
      sendJson(reply, 200, kept);
    });
    server.route('DELETE', `/v1/responses/${id}`, (_request, reply) => {
      if (!server.created.delete(id)) return notFound(reply, id);
      sendJson(reply, 200, { id, object: 'response', deleted: true });
    });
  };
  server.route('POST', '/v1/responses', async (request, response) => {
    const body = request.body as Json;
    next += 1;
    const id = `resp_openai${String(next).padStart(4, '0')}`;
    const message = {
      type: 'message',
      id: `msg_openai${next}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: OPENAI_RESPONSES_REPLY, annotations: [] }],
    };
    const usage = {
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 8,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 20,
    };
    const final = {
      id,
      object: 'response',
      created_at: 1_767_000_000,
      status: body.background === true ? 'queued' : 'completed',
      model: body.model,
      output: [message],
      usage,
      previous_response_id: body.previous_response_id ?? null,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      tools: body.tools ?? [],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      temperature: 1,
      top_p: 1,
      metadata: {},
    };
    if (body.store !== false) remember(final);
    if (body.stream !== true) return sendJson(response, 200, final);
    let sequence = 0;
    const event = (type: string, data: Json) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: sequence++ })}\n\n`;
    const started = { ...final, status: 'in_progress', output: [], usage: null };
    const where = { item_id: message.id, output_index: 0, content_index: 0 };
    await sendSse(response, [
      event('response.created', { response: started }),
      event('response.in_progress', { response: started }),
      event('response.output_item.added', {
        output_index: 0,
        item: { ...message, status: 'in_progress', content: [] },
      }),
      event('response.content_part.added', {
        ...where,
        part: { type: 'output_text', text: '', annotations: [] },
      }),
      ...halves(OPENAI_RESPONSES_REPLY).map((delta) =>
        event('response.output_text.delta', { ...where, delta, logprobs: [] }),
      ),
      event('response.output_text.done', { ...where, text: OPENAI_RESPONSES_REPLY, logprobs: [] }),
      event('response.content_part.done', { ...where, part: message.content[0] as Json }),
      event('response.output_item.done', { output_index: 0, item: message }),
      event('response.completed', { response: final }),
    ]);
  });
  return server.start();
}

function notFound(response: ServerResponse, id: string): void {
  sendJson(response, 404, {
    error: {
      message: `No response found with id '${id}'.`,
      type: 'invalid_request_error',
      param: null,
      code: null,
    },
  });
}
