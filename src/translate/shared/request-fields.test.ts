import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import { checkChatRequestFields, checkMessagesRequestFields } from './request-fields.ts';

const chat = (fields: Record<string, unknown>) => ({
  model: 'anthropic/claude-sonnet-4',
  messages: [{ role: 'user', content: 'Hi' }],
  ...fields,
});
const messages = (fields: Record<string, unknown>) => ({
  model: 'openai/gpt-4o',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Hi' }],
  ...fields,
});

/** The message of the InvalidRequestError `check` throws. */
function refusal(check: () => void): string {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).statusCode).toBe(400);
    expect((error as InvalidRequestError).type).toBe('invalid_request_error');
    return (error as Error).message;
  }
  throw new Error('the check passed');
}

describe('checkChatRequestFields', () => {
  it.each([
    [{ temperature: 'hot' }, "'temperature' must be a number"],
    [{ top_p: '0.9' }, "'top_p' must be a number"],
    [{ max_tokens: '100' }, "'max_tokens' must be an integer"],
    [{ max_completion_tokens: 10.5 }, "'max_completion_tokens' must be an integer"],
    [{ n: '2' }, "'n' must be an integer"],
    [{ seed: 'abc' }, "'seed' must be an integer"],
    [{ presence_penalty: true }, "'presence_penalty' must be a number"],
    [{ frequency_penalty: [] }, "'frequency_penalty' must be a number"],
    [{ logprobs: 'yes' }, "'logprobs' must be a boolean"],
    [{ top_logprobs: '3' }, "'top_logprobs' must be an integer"],
    [{ parallel_tool_calls: 'false' }, "'parallel_tool_calls' must be a boolean"],
    [{ user: 42 }, "'user' must be a string"],
    [{ stop: 5 }, "'stop' must be a string or an array of strings"],
    [{ stop: ['END', 5] }, "'stop' must be a string or an array of strings"],
    [{ response_format: 'json' }, "'response_format' must be an object"],
    [{ response_format: {} }, "'response_format.type' must be one of 'text', 'json_object', 'json_schema'"],
    [{ response_format: { type: 'xml' } }, "'response_format.type' must be one of"],
    [
      { response_format: { type: 'json_schema', json_schema: 'x' } },
      "'response_format.json_schema' must be an object",
    ],
    [
      { response_format: { type: 'json_schema', json_schema: { name: 'a', schema: 'x' } } },
      "'response_format.json_schema.schema' must be an object",
    ],
    [{ tools: {} }, "'tools' must be an array"],
    [{ tools: ['get_weather'] }, "'tools[0]' must be an object"],
    [{ tools: [{ type: 'function', function: 'f' }] }, "'tools[0].function' must be an object"],
    [{ tools: [{ type: 'function', function: { name: 7 } }] }, "'tools[0].function.name' must be a string"],
    [
      { tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] },
      "'tools[0].function.parameters' must be an object",
    ],
    [{ tool_choice: 'always' }, "'tool_choice' must be 'none', 'auto', 'required' or an object"],
    [{ tool_choice: { type: 'function' } }, "'tool_choice.function.name' must be a string"],
    [
      { tool_choice: { type: 'tool', function: { name: 'f' } } },
      "'tool_choice.type' must be one of 'function'",
    ],
    [{ stream_options: { include_usage: 'yes' } }, "'stream_options.include_usage' must be a boolean"],
  ])('refuses %j naming the field', (fields, expected) => {
    expect(refusal(() => checkChatRequestFields(chat(fields)))).toContain(expected);
  });

  it('takes well-typed fields, null as absent, and leaves fields no translator maps alone', () => {
    expect(() =>
      checkChatRequestFields(
        chat({
          temperature: 0.7,
          top_p: 1,
          max_tokens: 100,
          max_completion_tokens: null,
          n: 1,
          seed: 42,
          stop: ['END'],
          logprobs: true,
          top_logprobs: 2,
          user: 'u-1',
          parallel_tool_calls: false,
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
          },
          tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
          tool_choice: { type: 'function', function: { name: 'f' } },
          stream_options: null,
          presence_penalty: null,
          logit_bias: 'not looked at',
          some_new_field: { anything: true },
        }),
      ),
    ).not.toThrow();
    expect(() => checkChatRequestFields(chat({ stop: 'END', tool_choice: 'required' }))).not.toThrow();
    expect(() => checkChatRequestFields(chat({ tool_choice: null, tools: null }))).not.toThrow();
    expect(() => checkChatRequestFields(chat({ response_format: { type: 'json_schema' } }))).not.toThrow();
  });
});

describe('checkMessagesRequestFields', () => {
  it.each([
    [{ system: 7 }, "'system' must be a string or an array of text blocks"],
    // Anthropic's API takes no null for these: a wrong type like any other.
    [{ system: null }, "'system' must be a string or an array of text blocks"],
    [{ temperature: null }, "'temperature' must be a number"],
    [{ tool_choice: null }, "'tool_choice' must be an object"],
    [{ tools: null }, "'tools' must be an array"],
    [{ system: [{ type: 'image' }] }, "'system[0].type' must be 'text'"],
    [{ system: [{ type: 'text', text: 5 }] }, "'system[0].text' must be a string"],
    [{ system: ['Be brief.'] }, "'system[0]' must be an object"],
    [{ temperature: 'hot' }, "'temperature' must be a number"],
    [{ top_p: '1' }, "'top_p' must be a number"],
    [{ stop_sequences: 'END' }, "'stop_sequences' must be an array of strings"],
    [{ tools: [{ name: 'f', input_schema: 'x' }] }, "'tools[0].input_schema' must be an object"],
    [{ tools: [{ input_schema: {} }] }, "'tools[0].name' must be a string"],
    [{ tool_choice: 'auto' }, "'tool_choice' must be an object"],
    [
      { tool_choice: { type: 'sometimes' } },
      "'tool_choice.type' must be one of 'auto', 'any', 'tool', 'none'",
    ],
    [{ tool_choice: { type: 'tool' } }, "'tool_choice.name' must be a string"],
    [
      { tool_choice: { type: 'auto', disable_parallel_tool_use: 1 } },
      "'tool_choice.disable_parallel_tool_use' must be a boolean",
    ],
    [{ metadata: { user_id: 9 } }, "'metadata.user_id' must be a string"],
    [{ output_config: { format: 'json' } }, "'output_config.format' must be an object"],
    [
      { output_config: { format: { type: 'json_schema', schema: 'x' } } },
      "'output_config.format.schema' must be an object",
    ],
  ])('refuses %j naming the field', (fields, expected) => {
    expect(refusal(() => checkMessagesRequestFields(messages(fields)))).toContain(expected);
  });

  it('takes well-typed fields and leaves server tools and unmapped fields to others', () => {
    expect(() =>
      checkMessagesRequestFields(
        messages({
          system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
          temperature: 0.2,
          stop_sequences: ['END'],
          tools: [
            { name: 'f', description: 'd', input_schema: { type: 'object' } },
            { type: 'web_search_20250305', name: 'web_search' },
          ],
          tool_choice: { type: 'tool', name: 'f', disable_parallel_tool_use: true },
          metadata: { user_id: null },
          output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
          top_k: 'not mapped',
        }),
      ),
    ).not.toThrow();
    expect(() => checkMessagesRequestFields(messages({ system: 'Be brief.' }))).not.toThrow();
  });
});
