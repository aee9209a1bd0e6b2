/**
 * A fake OpenAI (or OpenAI-compatible) upstream speaking the real wire format: chat completions
 * as JSON or SSE (with the usage chunk when `stream_options.include_usage`), embeddings, models.
 */
import { FakeServer, sendJson, sendSse } from './fake-server.ts';

export const FAKE_OPENAI_REPLY = 'Hello from the fake OpenAI upstream.';

interface ChatBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  input?: unknown;
}

export function openAiCompletion(model: string, text = FAKE_OPENAI_REPLY) {
  return {
    id: 'chatcmpl-fake123',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: 12,
      completion_tokens: 8,
      total_tokens: 20,
      prompt_tokens_details: { cached_tokens: 0 },
    },
    system_fingerprint: 'fp_fake',
  };
}

export function openAiStreamEvents(model: string, pieces: string[], includeUsage: boolean): string[] {
  const base = {
    id: 'chatcmpl-fake123',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    system_fingerprint: 'fp_fake',
  };
  const usageField = includeUsage ? { usage: null } : {};
  const events = [
    {
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      ...usageField,
    },
    ...pieces.map((piece) => ({
      ...base,
      choices: [{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }],
      ...usageField,
    })),
    { ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], ...usageField },
  ].map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
  if (includeUsage) {
    events.push(
      `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 12, completion_tokens: pieces.length, total_tokens: 12 + pieces.length } })}\n\n`,
    );
  }
  events.push('data: [DONE]\n\n');
  return events;
}

export const STREAM_PIECES = ['Hello', ' from', ' the', ' fake', ' stream', '.'];

export async function startFakeOpenAi(): Promise<FakeServer> {
  const server = new FakeServer();
  server.route('POST', '/v1/chat/completions', async (request, response) => {
    const body = request.body as ChatBody;
    const model = body.model ?? 'unknown';
    if (body.stream) {
      await sendSse(
        response,
        openAiStreamEvents(model, STREAM_PIECES, body.stream_options?.include_usage === true),
      );
      return;
    }
    sendJson(response, 200, openAiCompletion(model));
  });
  server.route('POST', '/v1/embeddings', (request, response) => {
    const body = request.body as ChatBody;
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    sendJson(response, 200, {
      object: 'list',
      data: inputs.map((_input, index) => ({
        object: 'embedding',
        index,
        embedding: [0.1 * (index + 1), 0.2, 0.3],
      })),
      model: body.model,
      usage: { prompt_tokens: 5 * inputs.length, total_tokens: 5 * inputs.length },
    });
  });
  server.route('GET', '/v1/models', (_request, response) => {
    sendJson(response, 200, {
      object: 'list',
      data: [{ id: 'gpt-4o', object: 'model', created: 1, owned_by: 'openai' }],
    });
  });
  return server.start();
}
