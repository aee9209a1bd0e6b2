/**
 * Type checks of the Responses request fields the translator maps (shared/request-fields.ts says
 * why: on a translated route the gateway reads these fields, so a wrong type is a 400 naming it,
 * never a field silently dropped). `null` counts as absent, as on OpenAI's API. A pass-through to
 * OpenAI's own Responses API does not come here: OpenAI judges what it receives.
 */
import {
  BOOLEAN,
  checkFields,
  type FieldRule,
  fail,
  INTEGER,
  isObject,
  NUMBER,
  OBJECT,
  objectsOf,
  oneOf,
  rule,
  STRING,
  STRINGS,
} from '../shared/request-fields.ts';

type JsonObject = Record<string, unknown>;

const check = (record: JsonObject, rules: Readonly<Record<string, FieldRule>>, prefix = '') =>
  checkFields(record, rules, prefix, true);

const STRING_OR_ARRAY = rule(
  'a string or an array',
  (value) => typeof value === 'string' || Array.isArray(value),
);

const RESPONSES_FIELDS: Readonly<Record<string, FieldRule>> = {
  input: STRING_OR_ARRAY,
  instructions: STRING,
  temperature: NUMBER,
  top_p: NUMBER,
  max_output_tokens: INTEGER,
  parallel_tool_calls: BOOLEAN,
  store: BOOLEAN,
  stream: BOOLEAN,
  previous_response_id: STRING,
  user: STRING,
  safety_identifier: STRING,
  metadata: OBJECT,
  text: OBJECT,
  reasoning: OBJECT,
  include: STRINGS,
  tool_choice: rule(
    "'none', 'auto', 'required' or an object",
    (value) => isObject(value) || oneOf('none', 'auto', 'required')(value) === undefined,
  ),
};

/** Per item type, the fields it must have. */
const ITEM_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  message: { role: oneOf('user', 'assistant', 'system', 'developer'), content: STRING_OR_ARRAY },
  function_call: { call_id: STRING, name: STRING, arguments: STRING },
  function_call_output: { call_id: STRING, output: STRING_OR_ARRAY },
  item_reference: { id: STRING },
};

function checkItems(input: unknown[]): void {
  for (const [index, item] of objectsOf(input, 'input').entries()) {
    const type = item.type ?? 'message';
    const fields = typeof type === 'string' ? ITEM_FIELDS[type] : undefined;
    // Other item types are refused by the translator, each in its own words.
    if (fields === undefined) continue;
    const path = `input[${index}].`;
    for (const [field, fits] of Object.entries(fields)) {
      const expected = fits(item[field]);
      if (expected !== undefined) fail(`${path}${field}`, expected);
    }
    if (Array.isArray(item.content))
      for (const [at, part] of objectsOf(item.content, `${path}content`).entries())
        if (typeof part.type !== 'string') fail(`${path}content[${at}].type`, 'a string');
  }
}

function checkTools(tools: unknown): void {
  for (const [index, tool] of objectsOf(tools, 'tools').entries()) {
    if (typeof tool.type !== 'string') fail(`tools[${index}].type`, 'a string');
    // Hosted tools are refused by the translator, naming the provider.
    if (tool.type !== 'function') continue;
    if (typeof tool.name !== 'string') fail(`tools[${index}].name`, 'a string');
    check(tool, { description: STRING, parameters: OBJECT, strict: BOOLEAN }, `tools[${index}].`);
  }
}

function checkTextFormat(format: JsonObject): void {
  const type = oneOf('text', 'json_object', 'json_schema')(format.type);
  if (type !== undefined) fail('text.format.type', type);
  if (format.type !== 'json_schema') return;
  if (typeof format.name !== 'string') fail('text.format.name', 'a string');
  if (!isObject(format.schema)) fail('text.format.schema', 'an object');
  check(format, { strict: BOOLEAN, description: STRING }, 'text.format.');
}

/** Checks a Responses request bound for a translator; throws InvalidRequestError. */
export function checkResponsesRequestFields(body: JsonObject): void {
  check(body, RESPONSES_FIELDS);
  if (Array.isArray(body.input)) checkItems(body.input);
  if (body.tools !== undefined && body.tools !== null) checkTools(body.tools);
  const choice = body.tool_choice;
  if (isObject(choice)) {
    if (typeof choice.type !== 'string') fail('tool_choice.type', 'a string');
    if (choice.type === 'function' && typeof choice.name !== 'string') fail('tool_choice.name', 'a string');
  }
  if (isObject(body.text)) {
    const format = body.text.format;
    if (format !== undefined && format !== null) {
      if (!isObject(format)) fail('text.format', 'an object');
      checkTextFormat(format);
    }
  }
}
