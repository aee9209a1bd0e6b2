/**
 * fast-check arbitraries for the gateway's HTTP surface: request bodies of each route (valid
 * shapes with fields now and then replaced by any JSON value, arbitrary JSON, non-JSON text and
 * bytes, deep nesting, oversized), header values, content types, cache headers, model names and
 * credentials. Sizes stay small unless a case is about size: the budget is spent on variety.
 */
import fc from 'fast-check';
import { ANTHROPIC_CONNECTION_SLUG, BODY_LIMIT_BYTES, CONNECTION_SLUG } from './fuzz-gateway.ts';

export type Route = 'chat' | 'embeddings' | 'messages' | 'count_tokens' | 'responses';

export const ROUTE_PATHS: Readonly<Record<Route, string>> = {
  chat: '/v1/chat/completions',
  embeddings: '/v1/embeddings',
  messages: '/v1/messages',
  count_tokens: '/v1/messages/count_tokens',
  responses: '/v1/responses',
};

/** A field the gateway checks at its edge: valid mostly, so that the request gets past it. */
function edgeField<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 30, arbitrary: valid },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** A field only the translators read (past the edge): odd values often, where the bugs hide. */
function innerField<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: valid },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, undefined, 0, '', [], {}, true) },
  );
}

/** An array of items with now and then one that is not an item at all (null, a number, a string). */
function itemsOf<T>(item: fc.Arbitrary<T>, constraints: fc.ArrayConstraints): fc.Arbitrary<unknown[]> {
  return fc.array(
    fc.oneof({ weight: 8, arbitrary: item }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    constraints,
  );
}

/** Text as people and programs write it: ASCII, any Unicode, now and then long. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1900, maxLength: 2200 }) },
);

// ---------------------------------------------------------------------------------------------
// Model names

export const KNOWN_MODELS = [
  'openai/gpt-4o-mini',
  'gpt-4o',
  'anthropic/claude-3-5-haiku-latest',
  'gemini/gemini-2.5-flash',
  'gemini/gemini-embedding-001',
  'openai/text-embedding-3-small',
  'bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0',
  'bedrock-mantle/openai.gpt-oss-120b',
  'vertex/gemini-2.5-flash',
  'vertex/claude-3-5-sonnet@20240620',
  'groq/llama-3.1-8b-instant',
  'mistral/mistral-small',
  'deepinfra/meta-llama/Llama-3.3-70B-Instruct',
  `@${CONNECTION_SLUG}/gpt-4o-mini`,
  `@${CONNECTION_SLUG}`,
  `@${CONNECTION_SLUG}/`,
  `@${ANTHROPIC_CONNECTION_SLUG}/claude-3-5-haiku-latest`,
  `@${ANTHROPIC_CONNECTION_SLUG}`,
  '@no-such-connection/gpt-4o',
];

const MODEL_PREFIXES = [
  '',
  '@',
  '@@',
  '/',
  '//',
  '@/',
  `@${CONNECTION_SLUG}/`,
  `@${ANTHROPIC_CONNECTION_SLUG}/`,
  'openai/',
  'anthropic/',
  'gemini/',
  'bedrock/',
  'bedrock-mantle/',
  'vertex/',
  'vertex/claude-',
  'groq/',
  'unknown/',
  'OpenAI/',
  ' openai/',
  'openai//',
  '../',
  '%2e%2e/',
];

/** Characters that mean something to routing, URLs and paths. */
const MODEL_PUNCTUATION = fc.constantFrom(
  '/',
  '@',
  ':',
  '.',
  '..',
  '%',
  '?',
  '#',
  ' ',
  '\t',
  '\u0000',
  '\\',
  '~',
);

export const modelName: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...KNOWN_MODELS) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...MODEL_PREFIXES),
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 8 }),
            fc.string({ unit: 'grapheme', maxLength: 6 }),
            MODEL_PUNCTUATION,
          ),
          {
            maxLength: 5,
          },
        ),
      )
      .map(([prefix, parts]) => prefix + parts.join('')),
  },
  // Around the 256-character limit, and far past it.
  { weight: 1, arbitrary: fc.string({ minLength: 250, maxLength: 262 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('openai/', '@fuzz-conn/').map((prefix) => prefix + 'x'.repeat(5000)),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

// ---------------------------------------------------------------------------------------------
// Bodies

const role = fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer', 'function');

const toolCall = fc.record({
  id: innerField(fc.string({ maxLength: 12 })),
  type: innerField(fc.constant('function')),
  function: innerField(
    fc.record({
      name: innerField(fc.string({ maxLength: 12 })),
      arguments: innerField(fc.oneof(fc.json({ maxDepth: 2 }), fc.string({ maxLength: 20 }))),
    }),
  ),
});

const openAiPart = fc.oneof(
  fc.record({ type: innerField(fc.constant('text')), text: innerField(text) }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: innerField(
      fc.record({
        url: fc.oneof(
          fc.constant('data:image/png;base64,iVBORw0KGgo='),
          fc.constant('https://example.com/cat.png'),
          fc.string({ maxLength: 30 }).map((data) => `data:${data}`),
          fc.string({ maxLength: 30 }),
        ),
      }),
    ),
  }),
  fc.record({ type: fc.string({ maxLength: 10 }) }),
);

const openAiMessage = fc.record(
  {
    role: edgeField(role),
    content: innerField(fc.oneof(text, fc.constant(null), itemsOf(openAiPart, { maxLength: 3 }))),
    name: fc.string({ maxLength: 10 }),
    tool_calls: innerField(itemsOf(toolCall, { maxLength: 2 })),
    tool_call_id: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['role'] },
);

const jsonSchema = fc.oneof(
  fc.constant({ type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] }),
  fc.jsonValue({ maxDepth: 3 }),
);

const cacheDeclaration = fc.record(
  {
    safe: innerField(fc.boolean()),
    tags: innerField(
      fc.array(fc.oneof(fc.constant('product:{id}'), fc.string({ maxLength: 12 })), { maxLength: 3 }),
    ),
  },
  { requiredKeys: [] },
);

const openAiTool = fc.record(
  {
    type: innerField(fc.constant('function')),
    function: innerField(
      fc.record(
        {
          name: innerField(fc.string({ maxLength: 12 })),
          description: fc.string({ maxLength: 20 }),
          parameters: jsonSchema,
        },
        { requiredKeys: ['name'] },
      ),
    ),
    'x-service-cache': innerField(cacheDeclaration),
  },
  { requiredKeys: ['type', 'function'] },
);

/** Extra fields: real parameters with odd values, and unknown names. */
const extraFields = fc.record(
  {
    temperature: innerField(fc.oneof(fc.double(), fc.constantFrom(0, 0.7, 2, -1))),
    max_tokens: innerField(fc.oneof(fc.integer(), fc.constantFrom(1, 64, 2 ** 53, -1, 0))),
    max_completion_tokens: innerField(fc.integer({ min: -10, max: 100_000 })),
    stream: edgeField(fc.boolean()),
    stream_options: edgeField(fc.record({ include_usage: innerField(fc.boolean()) })),
    top_p: fc.double(),
    n: fc.integer({ min: -1, max: 5 }),
    stop: fc.oneof(fc.string({ maxLength: 5 }), fc.array(fc.string({ maxLength: 5 }), { maxLength: 5 })),
    seed: fc.integer(),
    user: fc.string({ maxLength: 10 }),
    response_format: innerField(
      fc.oneof(
        fc.constant({ type: 'json_object' }),
        fc.record({
          type: fc.constant('json_schema'),
          json_schema: fc.record({ name: fc.string(), schema: jsonSchema }),
        }),
      ),
    ),
    tool_choice: innerField(
      fc.oneof(fc.constantFrom('auto', 'none', 'required', 'any'), fc.jsonValue({ maxDepth: 2 })),
    ),
    metadata: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
);

const unknownFields = fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 3,
});

const chatBody = fc
  .tuple(
    fc.record({
      model: edgeField(modelName),
      messages: edgeField(fc.array(openAiMessage, { minLength: 1, maxLength: 4 })),
      tools: innerField(itemsOf(openAiTool, { maxLength: 3 })),
    }),
    extraFields,
    unknownFields,
  )
  .map(([core, extra, unknown]) => ({ ...unknown, ...extra, ...core }));

const anthropicBlock = fc.oneof(
  fc.record(
    { type: fc.constant('text'), text: innerField(text), cache_control: fc.constant({ type: 'ephemeral' }) },
    {
      requiredKeys: ['type', 'text'],
    },
  ),
  fc.record({
    type: fc.constant('image'),
    source: innerField(
      fc.record({
        type: fc.constantFrom('base64', 'url'),
        media_type: fc.constantFrom('image/png', 'image/jpeg', 'text/plain'),
        data: fc.base64String({ maxLength: 24 }),
        url: fc.string({ maxLength: 20 }),
      }),
    ),
  }),
  fc.record({
    type: fc.constant('tool_use'),
    id: innerField(fc.string({ maxLength: 10 })),
    name: innerField(fc.string({ maxLength: 10 })),
    input: innerField(fc.jsonValue({ maxDepth: 2 })),
  }),
  fc.record({
    type: fc.constant('tool_result'),
    tool_use_id: innerField(fc.string({ maxLength: 10 })),
    content: innerField(
      fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
    ),
    is_error: fc.boolean(),
  }),
  fc.record({ type: fc.constant('thinking'), thinking: text, signature: fc.string({ maxLength: 10 }) }),
  fc.record({ type: fc.string({ maxLength: 10 }) }),
);

const anthropicMessage = fc.record(
  {
    role: edgeField(fc.constantFrom('user', 'assistant', 'system')),
    content: innerField(fc.oneof(text, itemsOf(anthropicBlock, { maxLength: 3 }))),
  },
  { requiredKeys: ['role'] },
);

const anthropicTool = fc.record(
  {
    name: innerField(fc.string({ maxLength: 12 })),
    description: fc.string({ maxLength: 20 }),
    input_schema: innerField(jsonSchema),
    type: fc.constantFrom('custom', 'web_search_20250305', 'bash_20250124'),
    'x-service-cache': innerField(cacheDeclaration),
  },
  { requiredKeys: ['name'] },
);

const messagesBody = fc
  .tuple(
    fc.record(
      {
        model: edgeField(modelName),
        max_tokens: edgeField(fc.oneof(fc.integer({ min: 1, max: 4096 }), fc.integer())),
        messages: edgeField(fc.array(anthropicMessage, { minLength: 1, maxLength: 4 })),
        system: innerField(
          fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
        ),
        tools: innerField(itemsOf(anthropicTool, { maxLength: 3 })),
        thinking: fc.record({ type: fc.constantFrom('enabled', 'disabled'), budget_tokens: fc.integer() }),
        stop_sequences: fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
      },
      { requiredKeys: ['model', 'max_tokens', 'messages'] },
    ),
    extraFields,
    unknownFields,
  )
  .map(([core, extra, unknown]) => ({ ...unknown, ...extra, ...core }));

const embeddingsBody = fc
  .tuple(
    fc.record({
      model: edgeField(modelName),
      input: edgeField(
        fc.oneof(
          text,
          fc.array(text, { minLength: 1, maxLength: 4 }),
          fc.array(fc.integer({ min: -1, max: 100_000 }), { maxLength: 8 }),
          fc.array(fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 4 }), { maxLength: 3 }),
          fc.constant([]),
          fc.constant(Array.from({ length: 2049 }, () => 'x')),
        ),
      ),
    }),
    fc.record(
      {
        dimensions: innerField(fc.integer()),
        encoding_format: innerField(fc.constantFrom('float', 'base64', 'int8')),
        stream: edgeField(fc.boolean()),
        user: fc.string({ maxLength: 8 }),
      },
      { requiredKeys: [] },
    ),
    unknownFields,
  )
  .map(([core, extra, unknown]) => ({ ...unknown, ...extra, ...core }));

const responsesPart = fc.oneof(
  fc.record({ type: fc.constantFrom('input_text', 'output_text'), text: innerField(text) }),
  fc.record({
    type: fc.constant('input_image'),
    image_url: innerField(fc.constantFrom('data:image/png;base64,iVBORw0KGgo=', 'https://x.example/a.png')),
    detail: fc.constantFrom('auto', 'low', 'original'),
  }),
  fc.record({ type: fc.constant('refusal'), refusal: innerField(text) }),
  fc.record({ type: fc.string({ maxLength: 10 }) }),
);

const responsesItem = fc.oneof(
  fc.record(
    {
      type: fc.constant('message'),
      role: edgeField(fc.constantFrom('user', 'assistant', 'system', 'developer')),
      content: innerField(fc.oneof(text, itemsOf(responsesPart, { maxLength: 3 }))),
    },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record({
    type: fc.constant('function_call'),
    call_id: innerField(fc.string({ maxLength: 10 })),
    name: innerField(fc.string({ maxLength: 10 })),
    arguments: innerField(fc.oneof(fc.string({ maxLength: 12 }), fc.constant('{"city":"Paris"}'))),
  }),
  fc.record({
    type: fc.constant('function_call_output'),
    call_id: innerField(fc.string({ maxLength: 10 })),
    output: innerField(fc.oneof(text, itemsOf(responsesPart, { maxLength: 2 }))),
  }),
  fc.record({ type: fc.constant('reasoning'), id: fc.string({ maxLength: 8 }), summary: fc.constant([]) }),
  fc.record({ type: fc.constant('item_reference'), id: innerField(fc.string({ maxLength: 60 })) }),
  fc.record({ type: fc.constantFrom('web_search_call', 'compaction'), id: fc.string({ maxLength: 8 }) }),
);

const responsesTool = fc.oneof(
  fc.record(
    {
      type: fc.constant('function'),
      name: innerField(fc.string({ maxLength: 12 })),
      parameters: innerField(jsonSchema),
      strict: innerField(fc.boolean()),
      'x-service-cache': innerField(cacheDeclaration),
    },
    { requiredKeys: ['type', 'name'] },
  ),
  fc.record({ type: fc.constantFrom('web_search', 'file_search', 'code_interpreter', 'mcp') }),
);

const responsesBody = fc
  .tuple(
    fc.record(
      {
        model: edgeField(modelName),
        input: edgeField(fc.oneof(text, fc.array(responsesItem, { minLength: 1, maxLength: 4 }))),
        instructions: innerField(text),
        tools: innerField(itemsOf(responsesTool, { maxLength: 3 })),
        tool_choice: innerField(
          fc.oneof(
            fc.constantFrom('auto', 'none', 'required'),
            fc.record({
              type: fc.constantFrom('function', 'allowed_tools', 'web_search'),
              name: fc.string(),
            }),
          ),
        ),
        text: innerField(
          fc.record({
            format: innerField(
              fc.record({
                type: fc.constantFrom('text', 'json_object', 'json_schema'),
                name: innerField(fc.string({ maxLength: 8 })),
                schema: innerField(jsonSchema),
              }),
            ),
          }),
        ),
        max_output_tokens: innerField(fc.integer()),
        previous_response_id: innerField(fc.constantFrom(`resp_${'0'.repeat(48)}`, 'resp_unknown')),
        store: innerField(fc.boolean()),
        stream: edgeField(fc.boolean()),
      },
      { requiredKeys: ['model'] },
    ),
    unknownFields,
  )
  .map(([core, unknown]) => ({ ...unknown, ...core }));

/** A body of the route's shape, with fields now and then of any type or missing. */
export function shapedBody(route: Route): fc.Arbitrary<unknown> {
  switch (route) {
    case 'chat':
      return chatBody;
    case 'embeddings':
      return embeddingsBody;
    case 'messages':
    case 'count_tokens':
      return messagesBody;
    case 'responses':
      return responsesBody;
  }
}

/** A JSON text nested deeper than the gateway reads (128 levels), in arrays, objects, or a real body's field. */
export const deepJson: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 130, max: 20_000 }), fc.constantFrom('array', 'object', 'in-body', 'unclosed'))
  .map(([depth, form]) => {
    if (form === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    if (form === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    if (form === 'unclosed') return `{"model":"openai/gpt-4o","x":${'['.repeat(depth)}`;
    return `{"model":"openai/gpt-4o","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(depth)}0${']'.repeat(depth)}}`;
  });

/** A JSON text past the body limit. */
export const oversizedJson: fc.Arbitrary<string> = fc
  .integer({ min: BODY_LIMIT_BYTES + 1, max: BODY_LIMIT_BYTES + 64 * 1024 })
  .map((size) => `{"model":"openai/gpt-4o","messages":[{"role":"user","content":"${'a'.repeat(size)}"}]}`);

/** Any body at all: JSON of any shape, text that is almost JSON, arbitrary bytes. */
export const anyBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.uint8Array({ maxLength: 80 }),
  // Almost JSON: a valid document cut short, or with a stray character.
  fc
    .tuple(fc.json({ maxDepth: 3 }), fc.nat(), fc.string({ maxLength: 2 }))
    .map(([document, cut, stray]) => document.slice(0, cut % (document.length + 1)) + stray),
  fc.constantFrom(
    '',
    'null',
    '[]',
    '""',
    '{"__proto__":{"admin":true},"model":"openai/gpt-4o","messages":[{"role":"user","content":"x"}]}',
    '{"constructor":{"prototype":{"x":1}},"model":"openai/gpt-4o","messages":[{"role":"user","content":"x"}]}',
    '{"model":"openai/gpt-4o","messages":[{"role":"user","content":"\\ud800"}]}',
    '\ufeff{"model":"openai/gpt-4o","messages":[{"role":"user","content":"x"}]}',
    '{"model":"openai/gpt-4o","model":"anthropic/claude-3-5-haiku-latest","messages":[{"role":"user","content":"x"}],"max_tokens":5}',
  ),
);

// ---------------------------------------------------------------------------------------------
// Headers

/** Every byte a header value can carry on the wire (fetch refuses CR, LF and NUL; so does Node's parser). */
const headerCharacter = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  { weight: 1, arbitrary: fc.constantFrom(0x20, 0x09) },
);

export const headerValue: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.array(headerCharacter, { maxLength: 40 }).map((codes) => String.fromCharCode(...codes)),
  },
  // Long, though not so long that several together pass Node's 16 KiB header limit every time.
  {
    weight: 1,
    arbitrary: fc
      .array(headerCharacter, { minLength: 1000, maxLength: 5000 })
      .map((codes) => String.fromCharCode(...codes)),
  },
);

/** A valid value mostly, a near miss or anything now and then. */
function mostly(valid: fc.Arbitrary<string>, odd: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 1, arbitrary: odd },
    { weight: 1, arbitrary: headerValue },
  );
}

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/json;',
      'application/jsonx',
      'application/vnd.api+json',
      'text/plain',
      'text/event-stream',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=fuzz',
      'application/octet-stream',
      '*/*',
      '',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);

/** The cache request headers: valid values mostly, near misses and anything now and then. */
export const cacheHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'x-service-cache': mostly(
      fc.constantFrom('off', 'no-store', 'force-refresh', 'semantic'),
      fc.constantFrom('OFF', ' semantic ', 'sometimes', ''),
    ),
    'x-service-cache-namespace': mostly(
      fc.stringMatching(/^[a-z0-9:-]{0,20}$/),
      fc.oneof(fc.string({ maxLength: 20 }), fc.string({ minLength: 250, maxLength: 300 })),
    ),
    'x-service-cache-ttl': mostly(
      fc.integer({ min: 1, max: 100_000 }).map(String),
      fc.constantFrom('0', '-1', '86401', '999999999', '9999999999', '1.5', '1e3', ' 60 ', '+60', '0x10'),
    ),
    'x-service-cache-force': mostly(fc.constant('1'), fc.constantFrom('0', 'true', '')),
    'x-service-cache-threshold': mostly(
      fc.double({ min: 0, max: 1, noNaN: true }).map(String),
      fc.oneof(
        fc.double().map(String),
        fc.constantFrom('.5', '5.', '-0', 'NaN', 'Infinity', '1e309', '1e-400', '0x1', ''),
      ),
    ),
    'x-service-cache-policy': mostly(fc.constant('default'), fc.constantFrom('docs', 'nope')),
    'x-service-cache-tags': mostly(
      fc
        .array(fc.constantFrom('product:42', 'catalog', 'a.b_c-d', 'user-7'), { maxLength: 4 })
        .map((tags) => tags.join(',')),
      fc
        .array(fc.oneof(fc.constantFrom('Upper', '-x', '', ' a '), fc.string({ maxLength: 8 })), {
          maxLength: 20,
        })
        .map((tags) => tags.join(',')),
    ),
    'x-service-byok': mostly(fc.constant('required'), fc.constantFrom('REQUIRED', 'optional')),
  },
  { requiredKeys: [] },
);

/** Other headers the gateway reads or forwards, and a few it must ignore. */
export const otherHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'anthropic-version': fc.oneof(fc.constantFrom('2023-06-01', '2023-01-01', ''), headerValue),
    'anthropic-beta': fc.oneof(fc.constantFrom('prompt-caching-2024-07-31', 'a,b'), headerValue),
    accept: fc.oneof(fc.constantFrom('application/json', 'text/event-stream', '*/*'), headerValue),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', 'gzip, deflate, br, zstd'),
    origin: fc.oneof(fc.constantFrom('https://app.example.com', 'null'), headerValue),
    'x-request-id': headerValue,
    'x-forwarded-for': headerValue,
    'openai-organization': headerValue,
  },
  { requiredKeys: [] },
);

/** Header names that are not the transport's own (fetch and HTTP framing decide those). */
export const headerName: fc.Arbitrary<string> = fc
  .stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,20}$/)
  .filter(
    (name) =>
      ![
        'host',
        'content-length',
        'transfer-encoding',
        'connection',
        'keep-alive',
        'upgrade',
        'expect',
        'te',
        'trailer',
        'proxy-connection',
      ].includes(name),
  );

// ---------------------------------------------------------------------------------------------
// Credentials

/** How a credential goes: the two headers the gateway reads, with spellings right and wrong. */
export function credentialHeaders(credential: fc.Arbitrary<string>): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    { weight: 6, arbitrary: credential.map((value) => ({ authorization: `Bearer ${value}` })) },
    { weight: 2, arbitrary: credential.map((value) => ({ 'x-api-key': value })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom('bearer ', 'BEARER ', 'Bearer  ', 'Bearer\t', 'Basic ', 'Token ', 'Bearer', ''),
          credential,
        )
        .map(([scheme, value]) => ({ authorization: `${scheme}${value}` })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(credential, headerValue)
        .map(([value, other]) => ({ authorization: `Bearer ${other}`, 'x-api-key': value })),
    },
    { weight: 1, arbitrary: fc.constant({}) },
  );
}

/** A credential string that no deployment issued: random, or shaped like one of ours. */
export const randomCredential: fc.Arbitrary<string> = fc.oneof(
  headerValue,
  fc.constantFrom('tt_sk_', 'tt_ev_', 'tt_pat_', 'tt_prov_', 'sk-').chain((prefix) =>
    fc.oneof(
      fc.base64String({ maxLength: 60 }).map((rest) => prefix + rest),
      fc.stringMatching(/^[A-Za-z0-9_.-]{0,80}$/).map((rest) => prefix + rest),
    ),
  ),
);
