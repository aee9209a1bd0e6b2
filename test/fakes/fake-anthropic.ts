/**
 * A fake Anthropic Messages upstream: JSON responses and the real SSE event sequence
 * (message_start, content blocks, message_delta with cumulative usage, message_stop, pings).
 */
import { FakeServer, sendJson, sendSse } from './fake-server.ts';

export const FAKE_ANTHROPIC_REPLY = 'Hello from the fake Anthropic upstream.';
export const FAKE_ANTHROPIC_TOKEN_COUNT = 42;

export function anthropicMessage(model: string, text = FAKE_ANTHROPIC_REPLY) {
  return {
    id: 'msg_fake123',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: 20,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 10,
    },
  };
}

export function anthropicStreamEvents(model: string, pieces: string[]): string[] {
  const event = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  return [
    event('message_start', {
      type: 'message_start',
      message: {
        ...anthropicMessage(model),
        content: [],
        stop_reason: null,
        usage: {
          input_tokens: 20,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      },
    }),
    event('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    event('ping', { type: 'ping' }),
    ...pieces.map((text) =>
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      }),
    ),
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: pieces.length },
    }),
    event('message_stop', { type: 'message_stop' }),
  ];
}

export async function startFakeAnthropic(): Promise<FakeServer> {
  const server = new FakeServer();
  server.route('POST', '/v1/messages', async (request, response) => {
    const body = request.body as { model?: string; stream?: boolean };
    const model = body.model ?? 'unknown';
    if (request.headers['x-api-key'] === undefined || request.headers['anthropic-version'] === undefined) {
      sendJson(response, 401, {
        type: 'error',
        error: { type: 'authentication_error', message: 'missing x-api-key or anthropic-version' },
      });
      return;
    }
    if (body.stream) {
      await sendSse(response, anthropicStreamEvents(model, ['Hello', ' from', ' Anthropic', '.']));
      return;
    }
    sendJson(response, 200, anthropicMessage(model));
  });
  // The real count: tokens of the system prompt, messages and tools; the fake answers a fixed 42.
  server.route('POST', '/v1/messages/count_tokens', (request, response) => {
    if (request.headers['x-api-key'] === undefined || request.headers['anthropic-version'] === undefined) {
      sendJson(response, 401, {
        type: 'error',
        error: { type: 'authentication_error', message: 'missing x-api-key or anthropic-version' },
      });
      return;
    }
    sendJson(response, 200, { input_tokens: FAKE_ANTHROPIC_TOKEN_COUNT });
  });
  server.route('GET', '/v1/models', (_request, response) => {
    sendJson(response, 200, {
      data: [
        {
          type: 'model',
          id: 'claude-3-5-sonnet-20241022',
          display_name: 'Claude',
          created_at: '2024-10-22T00:00:00Z',
        },
      ],
      has_more: false,
      first_id: null,
      last_id: null,
    });
  });
  return server.start();
}
