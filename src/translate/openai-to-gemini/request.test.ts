import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type { ChatCompletionRequest } from '../../shapes/openai.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { convertChatRequestToGemini, generateContentPath, SKIP_THOUGHT_SIGNATURE } from './request.ts';

const fixture = (name: string): ChatCompletionRequest => translatorFixtures('openai-to-gemini').json(name);

const request = (fields: Partial<ChatCompletionRequest>): ChatCompletionRequest => ({
  model: 'gemini-2.5-flash',
  messages: [{ role: 'user', content: 'Hi' }],
  ...fields,
});

describe('generateContentPath', () => {
  it('builds the generateContent path and the SSE streaming path', () => {
    expect(generateContentPath('gemini-2.5-flash', false)).toBe(
      '/v1beta/models/gemini-2.5-flash:generateContent',
    );
    expect(generateContentPath('gemini-2.5-flash', true)).toBe(
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
  });

  it('accepts a models/ prefix and encodes the id', () => {
    expect(generateContentPath('models/gemini-2.0-flash', false)).toBe(
      '/v1beta/models/gemini-2.0-flash:generateContent',
    );
    expect(generateContentPath('a b', false)).toBe('/v1beta/models/a%20b:generateContent');
  });
});

describe('convertChatRequestToGemini', () => {
  it('converts a multi-turn conversation with images, tool calls and tool results', () => {
    const body = convertChatRequestToGemini(fixture('multi-turn-tools.request.json'));
    const png = fixture('multi-turn-tools.request.json').messages[2] as {
      content: { image_url?: { url: string } }[];
    };
    const pngData = png.content[1]?.image_url?.url.split(',')[1];

    expect(body).toEqual({
      systemInstruction: {
        parts: [
          { text: 'You are a travel assistant. Answer briefly.' },
          { text: 'Always use metric units.' },
        ],
      },
      contents: [
        {
          role: 'user',
          parts: [
            { text: "What's the weather where this photo was taken, and in Tokyo?" },
            { inlineData: { mimeType: 'image/png', data: pngData } },
            // A Files-API URI: Gemini knows its type.
            {
              fileData: {
                fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/eiffel-photo-8kq2',
              },
            },
          ],
        },
        {
          role: 'model',
          parts: [
            {
              functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } },
              thoughtSignature: SKIP_THOUGHT_SIGNATURE,
            },
            {
              functionCall: { name: 'get_weather', args: { city: 'Tokyo', unit: 'celsius' } },
              thoughtSignature: SKIP_THOUGHT_SIGNATURE,
            },
          ],
        },
        {
          // Both tool results answer one model turn: one user content, one functionResponse per call.
          role: 'user',
          parts: [
            {
              functionResponse: {
                name: 'get_weather',
                response: { content: '{"temperature":18,"condition":"cloudy"}' },
              },
            },
            { functionResponse: { name: 'get_weather', response: { content: '24°C, clear' } } },
          ],
        },
        { role: 'model', parts: [{ text: 'Paris: 18 °C and cloudy. Tokyo: 24 °C and clear.' }] },
        { role: 'user', parts: [{ text: 'Thanks! Book me a table in Paris tonight.' }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather for a city',
              parameters: {
                type: 'object',
                properties: {
                  city: { type: 'string', description: 'City name' },
                  unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
                },
                required: ['city', 'unit'],
              },
            },
            {
              name: 'book_table',
              description: 'Reserve a restaurant table',
              parameters: {
                type: 'object',
                properties: {
                  restaurant: {
                    type: 'string',
                    nullable: true,
                    description: 'Restaurant name, or null for any',
                  },
                  party_size: { type: 'integer', minimum: 1, maximum: 20 },
                  time: { type: 'string', format: 'date-time' },
                  contact: { type: 'string' },
                  kind: { type: 'string', enum: ['dinner'] },
                  notes: { type: 'string', maxLength: 200, nullable: true },
                },
                required: ['party_size', 'time', 'kind'],
              },
            },
            // An empty parameters object is omitted rather than sent empty.
            { name: 'list_bookings', description: "List the user's bookings" },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: {
        temperature: 0.4,
        topP: 0.9,
        // max_completion_tokens wins over the deprecated max_tokens.
        maxOutputTokens: 512,
        stopSequences: ['\n\nUser:'],
        seed: 42,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
      },
    });
  });

  it('converts json_schema structured output to responseMimeType and a converted responseSchema', () => {
    const body = convertChatRequestToGemini(fixture('structured-output.request.json'));
    expect(body.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'object',
        title: 'Person',
        properties: {
          name: { title: 'Name', type: 'string' },
          born: { title: 'Born', type: 'integer' },
          fields: { title: 'Fields', type: 'array', items: { type: 'string' } },
          address: {
            type: 'object',
            title: 'Address',
            properties: {
              street: { title: 'Street', type: 'string' },
              city: { title: 'City', type: 'string' },
            },
            required: ['street', 'city'],
            default: null,
            nullable: true,
          },
          spouse: { type: 'string', title: 'Spouse', nullable: true },
        },
        required: ['name', 'born', 'fields', 'address', 'spouse'],
      },
    });
  });

  it('maps json_object to a JSON response MIME type without a schema, and text to nothing', () => {
    expect(
      convertChatRequestToGemini(request({ response_format: { type: 'json_object' } })).generationConfig,
    ).toEqual({
      responseMimeType: 'application/json',
    });
    expect(
      convertChatRequestToGemini(request({ response_format: { type: 'text' } })).generationConfig,
    ).toBeUndefined();
  });

  it.each([
    ['none', { mode: 'NONE' }],
    ['auto', { mode: 'AUTO' }],
    ['required', { mode: 'ANY' }],
    [
      { type: 'function', function: { name: 'get_weather' } },
      { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    ],
  ] as const)('maps tool_choice %j to functionCallingConfig %j', (choice, config) => {
    const body = convertChatRequestToGemini(
      request({
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
        tool_choice: choice,
      }),
    );
    expect(body.toolConfig).toEqual({ functionCallingConfig: config });
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'get_weather' }] }]);
  });

  it('sends no tools and no toolConfig when the request has no tools', () => {
    const body = convertChatRequestToGemini(request({ tool_choice: 'none' }));
    expect(body.tools).toBeUndefined();
    expect(body.toolConfig).toBeUndefined();
  });

  it('falls back to max_tokens, wraps a single stop string, and maps n, logprobs and top_logprobs', () => {
    const body = convertChatRequestToGemini(
      request({ max_tokens: 64, stop: 'END', n: 2, logprobs: true, top_logprobs: 3, temperature: 0 }),
    );
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 64,
      stopSequences: ['END'],
      candidateCount: 2,
      responseLogprobs: true,
      logprobs: 3,
      temperature: 0,
    });
  });

  it('merges a tool result and the next user message into one user turn', () => {
    const body = convertChatRequestToGemini(
      request({
        messages: [
          { role: 'user', content: 'Roll a die' },
          {
            role: 'assistant',
            content: 'Rolling.',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'roll', arguments: '' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '4' },
          { role: 'user', content: 'Again?' },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Roll a die' }] },
      {
        role: 'model',
        parts: [
          { text: 'Rolling.' },
          { functionCall: { name: 'roll', args: {} }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'roll', response: { content: '4' } } }, { text: 'Again?' }],
      },
    ]);
  });

  it('replays unparseable or non-object tool arguments as an empty object', () => {
    const body = convertChatRequestToGemini(
      request({
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'f', arguments: '{"cut off' } },
              { id: 'b', type: 'function', function: { name: 'g', arguments: '[1,2]' } },
            ],
          },
        ],
      }),
    );
    expect(body.contents[0]?.parts?.map((part) => part.functionCall?.args)).toEqual([{}, {}]);
  });

  it('refuses a tool message whose tool_call_id matches no assistant tool call', () => {
    expect(() =>
      convertChatRequestToGemini(
        request({ messages: [{ role: 'tool', tool_call_id: 'call_x', content: 'r' }] }),
      ),
    ).toThrow(InvalidRequestError);
  });

  it('puts system text into the first user turn for Gemma, which refuses systemInstruction', () => {
    const body = convertChatRequestToGemini({
      model: 'gemma-3-27b-it',
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(body.systemInstruction).toBeUndefined();
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'Be terse.' }, { text: 'Hi' }] }]);
  });

  it('sends system-only requests as a user turn, since Gemini needs contents', () => {
    const body = convertChatRequestToGemini(request({ messages: [{ role: 'system', content: 'Say hi.' }] }));
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'Say hi.' }] }]);
    expect(body.systemInstruction).toBeUndefined();
  });

  it('converts audio, data-URL files, URL-encoded data URLs and YouTube links; drops empty text', () => {
    const body = convertChatRequestToGemini(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '' },
              { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
              {
                type: 'file',
                file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
              },
              { type: 'image_url', image_url: { url: 'data:image/svg+xml,%3Csvg%2F%3E' } },
              { type: 'image_url', image_url: { url: 'https://www.youtube.com/watch?v=9hE5-98ZeCg' } },
            ],
          },
        ],
      }),
    );
    expect(body.contents[0]?.parts).toEqual([
      { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
      { inlineData: { mimeType: 'image/svg+xml', data: Buffer.from('<svg/>').toString('base64') } },
      { fileData: { fileUri: 'https://www.youtube.com/watch?v=9hE5-98ZeCg' } },
    ]);
  });

  it('refuses other image URLs on the Gemini API with a 400 naming the rule (the gateway fetches nothing)', () => {
    for (const url of [
      'https://cdn.example.com/render.png',
      'http://169.254.169.254/latest/meta-data/',
      'gs://bucket/cat.png',
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash',
    ]) {
      const imageRequest = request({
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
      });
      const error = (() => {
        try {
          convertChatRequestToGemini(imageRequest);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as InvalidRequestError).statusCode).toBe(400);
      expect((error as Error).message).toBe(
        'messages[0].content[0]: gemini/ models take images and files as data: URLs (data:image/png;base64,...), ' +
          'Gemini Files API URIs or YouTube links; the gateway does not fetch other URLs',
      );
    }
  });

  it('sends gs:// and https URIs as fileData to an upstream that fetches them (Vertex)', () => {
    const body = convertChatRequestToGemini(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: 'gs://bucket/photos/cat.webp' } },
              { type: 'image_url', image_url: { url: 'https://cdn.example.com/render' } },
            ],
          },
        ],
      }),
      { remoteFileUris: true },
    );
    expect(body.contents[0]?.parts).toEqual([
      { fileData: { mimeType: 'image/webp', fileUri: 'gs://bucket/photos/cat.webp' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://cdn.example.com/render' } },
    ]);
    const ftp = request({
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }],
    });
    expect(() => convertChatRequestToGemini(ftp, { remoteFileUris: true })).toThrow(
      /vertex\/ Gemini models take media as data: URLs, gs:\/\/ or https URIs/,
    );
  });

  it('refuses content parts, roles and formats Gemini cannot take', () => {
    const badPart = request({
      messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }],
    });
    expect(() => convertChatRequestToGemini(badPart)).toThrow(/file_data/);
    const badRole = request({ messages: [{ role: 'function', content: 'x' } as never] });
    expect(() => convertChatRequestToGemini(badRole)).toThrow(InvalidRequestError);
    const badFormat = request({ response_format: { type: 'xml' } as never });
    expect(() => convertChatRequestToGemini(badFormat)).toThrow(/response_format/);
  });
});
