/**
 * Type checks of the request fields that translators map, before any translation. On a translated
 * route the gateway, not the upstream, reads these fields: a wrongly typed one would otherwise be
 * dropped on the way (`temperature: "hot"` sent as nothing, a `json_schema` that is not an object
 * losing the schema) and the caller would get a 200 for a request it did not make. Each wrong type
 * is a 400 naming the field. Pass-through routes do not come here (STYLE rule 3: the upstream
 * judges what it receives unchanged), and fields no translator maps are not checked.
 *
 * On chat completions `null` counts as absent, as the OpenAI API takes it for its optional fields;
 * Anthropic's API reference marks none of the fields checked here nullable (but `metadata.user_id`
 * and `output_config.format`), so on /v1/messages it is a wrong type like any other.
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';

type JsonObject = Record<string, unknown>;

/** Undefined when `value` fits; else what it must be ("a number"). */
export type FieldRule = (value: unknown) => string | undefined;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const rule =
  (expected: string, fits: (value: unknown) => boolean): FieldRule =>
  (value) =>
    fits(value) ? undefined : expected;

export const NUMBER = rule('a number', (value) => typeof value === 'number' && Number.isFinite(value));
export const INTEGER = rule('an integer', (value) => Number.isInteger(value));
export const BOOLEAN = rule('a boolean', (value) => typeof value === 'boolean');
export const STRING = rule('a string', (value) => typeof value === 'string');
export const OBJECT = rule('an object', isObject);
export const STRINGS = rule(
  'an array of strings',
  (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
);
const STRING_OR_STRINGS = rule(
  'a string or an array of strings',
  (value) => typeof value === 'string' || STRINGS(value) === undefined,
);
export const oneOf = (...values: string[]): FieldRule =>
  rule(`one of ${values.map((value) => `'${value}'`).join(', ')}`, (value) =>
    values.includes(value as string),
  );

export function fail(path: string, expected: string): never {
  throw new InvalidRequestError(`'${path}' must be ${expected}`);
}

/** Checks the fields of `rules` present on `record` (null as absent when `nullable`), named under `prefix`. */
export function checkFields(
  record: JsonObject,
  rules: Readonly<Record<string, FieldRule>>,
  prefix: string,
  nullable: boolean,
): void {
  for (const [field, check] of Object.entries(rules)) {
    const value = record[field];
    if (value === undefined || (nullable && value === null)) continue;
    const expected = check(value);
    if (expected !== undefined) fail(`${prefix}${field}`, expected);
  }
}

/** The value as a list of objects (each checked to be one), or fails naming `path`. */
export function objectsOf(value: unknown, path: string): JsonObject[] {
  if (!Array.isArray(value)) fail(path, 'an array');
  return value.map((item, index) => (isObject(item) ? item : fail(`${path}[${index}]`, 'an object')));
}

// OpenAI chat completions (openai-to-anthropic, openai-to-gemini, openai-to-bedrock).

const checkChatFields = (record: JsonObject, rules: Readonly<Record<string, FieldRule>>, prefix = '') =>
  checkFields(record, rules, prefix, true);

const CHAT_FIELDS: Readonly<Record<string, FieldRule>> = {
  temperature: NUMBER,
  top_p: NUMBER,
  presence_penalty: NUMBER,
  frequency_penalty: NUMBER,
  max_tokens: INTEGER,
  max_completion_tokens: INTEGER,
  n: INTEGER,
  seed: INTEGER,
  top_logprobs: INTEGER,
  logprobs: BOOLEAN,
  parallel_tool_calls: BOOLEAN,
  user: STRING,
  stop: STRING_OR_STRINGS,
  response_format: OBJECT,
  tool_choice: rule(
    "'none', 'auto', 'required' or an object",
    (value) => isObject(value) || oneOf('none', 'auto', 'required')(value) === undefined,
  ),
};

function checkChatResponseFormat(format: JsonObject): void {
  const type = oneOf('text', 'json_object', 'json_schema')(format.type);
  if (type !== undefined) fail('response_format.type', type);
  const schemaFormat = format.json_schema;
  if (format.type !== 'json_schema' || schemaFormat === undefined || schemaFormat === null) return;
  if (!isObject(schemaFormat)) fail('response_format.json_schema', 'an object');
  checkChatFields(
    schemaFormat,
    { name: STRING, description: STRING, schema: OBJECT, strict: BOOLEAN },
    'response_format.json_schema.',
  );
}

function checkChatTools(tools: unknown): void {
  for (const [index, tool] of objectsOf(tools, 'tools').entries()) {
    // Tools of other types are refused by the translators, each in its own words.
    if (tool.type !== 'function') continue;
    const path = `tools[${index}].function`;
    if (!isObject(tool.function)) fail(path, 'an object');
    if (typeof tool.function.name !== 'string') fail(`${path}.name`, 'a string');
    checkChatFields(tool.function, { description: STRING, parameters: OBJECT, strict: BOOLEAN }, `${path}.`);
  }
}

/** Checks an OpenAI chat-completions request bound for a translator; throws InvalidRequestError. */
export function checkChatRequestFields(body: JsonObject): void {
  checkChatFields(body, CHAT_FIELDS);
  if (isObject(body.response_format)) checkChatResponseFormat(body.response_format);
  if (body.tools !== undefined && body.tools !== null) checkChatTools(body.tools);
  const choice = body.tool_choice;
  if (isObject(choice)) {
    checkChatFields(choice, { type: oneOf('function') }, 'tool_choice.');
    if (!isObject(choice.function) || typeof choice.function.name !== 'string')
      fail('tool_choice.function.name', 'a string');
  }
  if (isObject(body.stream_options))
    checkChatFields(body.stream_options, { include_usage: BOOLEAN }, 'stream_options.');
}

// Anthropic Messages (anthropic-to-openai, and through it anthropic-to-gemini, anthropic-to-bedrock).

const checkMessagesFields = (record: JsonObject, rules: Readonly<Record<string, FieldRule>>, prefix = '') =>
  checkFields(record, rules, prefix, false);

const MESSAGES_FIELDS: Readonly<Record<string, FieldRule>> = {
  temperature: NUMBER,
  top_p: NUMBER,
  stop_sequences: STRINGS,
  system: rule(
    'a string or an array of text blocks',
    (value) => typeof value === 'string' || Array.isArray(value),
  ),
  tool_choice: OBJECT,
  metadata: OBJECT,
  output_config: OBJECT,
};

function checkSystemBlocks(blocks: unknown): void {
  for (const [index, block] of objectsOf(blocks, 'system').entries()) {
    if (block.type !== 'text') fail(`system[${index}].type`, "'text'");
    if (typeof block.text !== 'string') fail(`system[${index}].text`, 'a string');
  }
}

function checkMessagesTools(tools: unknown): void {
  for (const [index, tool] of objectsOf(tools, 'tools').entries()) {
    // Server tools (a type other than `custom`) are refused by the translator.
    if (tool.type !== undefined && tool.type !== 'custom') continue;
    const path = `tools[${index}]`;
    if (typeof tool.name !== 'string') fail(`${path}.name`, 'a string');
    if (!isObject(tool.input_schema)) fail(`${path}.input_schema`, 'an object');
    checkMessagesFields(tool, { description: STRING, strict: BOOLEAN }, `${path}.`);
  }
}

/** Checks an Anthropic Messages request bound for a translator; throws InvalidRequestError. */
export function checkMessagesRequestFields(body: JsonObject): void {
  checkMessagesFields(body, MESSAGES_FIELDS);
  if (Array.isArray(body.system)) checkSystemBlocks(body.system);
  if (body.tools !== undefined) checkMessagesTools(body.tools);
  const choice = body.tool_choice;
  if (isObject(choice)) {
    checkMessagesFields(choice, { disable_parallel_tool_use: BOOLEAN }, 'tool_choice.');
    const type = oneOf('auto', 'any', 'tool', 'none')(choice.type);
    if (type !== undefined) fail('tool_choice.type', type);
    if (choice.type === 'tool' && typeof choice.name !== 'string') fail('tool_choice.name', 'a string');
  }
  // Anthropic's API takes a null user_id.
  if (isObject(body.metadata)) checkFields(body.metadata, { user_id: STRING }, 'metadata.', true);
  const format = isObject(body.output_config) ? body.output_config.format : undefined;
  if (format !== undefined && format !== null) {
    if (!isObject(format)) fail('output_config.format', 'an object');
    const type = oneOf('json_schema')(format.type);
    if (type !== undefined) fail('output_config.format.type', type);
    if (!isObject(format.schema)) fail('output_config.format.schema', 'an object');
  }
}
