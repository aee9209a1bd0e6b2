import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../shapes/openai.ts';
import type { ResponsesRequest } from '../../shapes/responses.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { createItemIdMinter, responseIdOfItem } from './ids.ts';
import { convertChatResponseToResponses, type ResponsesContext } from './response.ts';

/** The chat side of this pair is the upstream's chat completion: anthropic-to-openai holds those. */
const chatFixtures = translatorFixtures('anthropic-to-openai');
const RESPONSE_ID = `resp_${'ab12'.repeat(12)}`;

const context = (request: Partial<ResponsesRequest> = {}): ResponsesContext => ({
  id: RESPONSE_ID,
  request: { model: 'openai/gpt-4o-mini', input: 'x', ...request },
  now: () => 1_760_995_520,
});
const convert = (name: string, request?: Partial<ResponsesRequest>) =>
  convertChatResponseToResponses(chatFixtures.json<ChatCompletion>(name), context(request));

describe('convertChatResponseToResponses', () => {
  it('turns a text answer into one completed message item, usage renamed, the request echoed', () => {
    const response = convert('text.response.json', {
      instructions: 'Be brief.',
      temperature: 0.2,
      store: false,
    });
    expect(response).toEqual({
      id: RESPONSE_ID,
      object: 'response',
      created_at: 1_760_995_512,
      completed_at: 1_760_995_520,
      status: 'completed',
      background: false,
      error: null,
      incomplete_details: null,
      instructions: 'Be brief.',
      max_output_tokens: null,
      model: 'gpt-4o-mini-2024-07-18',
      output: [
        {
          type: 'message',
          id: `msg_${'ab12'.repeat(12)}0000`,
          role: 'assistant',
          status: 'completed',
          content: [
            {
              type: 'output_text',
              text: 'The README explains how to install, configure and run the inference gateway.',
              annotations: [],
              logprobs: [],
            },
          ],
        },
      ],
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      service_tier: 'default',
      store: false,
      temperature: 0.2,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: 1,
      truncation: 'disabled',
      usage: {
        input_tokens: 2381,
        input_tokens_details: { cached_tokens: 2304 },
        output_tokens: 17,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 2398,
      },
      user: null,
      metadata: {},
    });
  });

  it('turns tool calls into function_call items with fc_ ids and the upstream call ids, and no message', () => {
    const response = convert('tool-calls.response.json');
    expect(response.status).toBe('completed');
    expect(response.output).toEqual([
      {
        type: 'function_call',
        id: `fc_${'ab12'.repeat(12)}0000`,
        call_id: 'call_qF8m2VxN7pLr4Tz1',
        name: 'get_weather',
        arguments: '{"city":"Paris","unit":"celsius"}',
        status: 'completed',
      },
      {
        type: 'function_call',
        id: `fc_${'ab12'.repeat(12)}0001`,
        call_id: 'call_Hw3Kd9sB6yQe0Jm5',
        name: 'get_weather',
        arguments: '{"city":"Tokyo","unit":"celsius"}',
        status: 'completed',
      },
    ]);
    // Every item id leads back to its response (item_reference resolution).
    for (const item of response.output) expect(responseIdOfItem(item.id)).toBe(RESPONSE_ID);
  });

  it('is incomplete with max_output_tokens after finish_reason length, its message incomplete too', () => {
    const response = convert('length.response.json', { max_output_tokens: 64 });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.max_output_tokens).toBe(64);
    expect(response.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
  });

  it('is incomplete with content_filter after finish_reason content_filter', () => {
    const response = convert('content-filter.response.json');
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'content_filter' });
  });

  it('keeps a refusal as a refusal part', () => {
    const response = convert('refusal.response.json');
    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        content: [{ type: 'refusal', refusal: expect.stringContaining('help') }],
      }),
    ]);
  });
});

describe('createItemIdMinter', () => {
  it('mints ids from the response digits and a counter, and only those lead back to a response', () => {
    const mint = createItemIdMinter(RESPONSE_ID);
    expect([mint('msg'), mint('fc'), mint('call')]).toEqual([
      `msg_${'ab12'.repeat(12)}0000`,
      `fc_${'ab12'.repeat(12)}0001`,
      `call_${'ab12'.repeat(12)}0002`,
    ]);
    expect(responseIdOfItem('msg_68c1f0a2b4')).toBeUndefined();
    expect(responseIdOfItem(`msg_${'AB12'.repeat(12)}0000`)).toBeUndefined();
    expect(() => createItemIdMinter('chatcmpl-123')).toThrow(TypeError);
  });
});
