/**
 * OpenAI Responses request -> OpenAI chat-completions request, following the table of
 * reference/responses-api.md section 7.1. The chat shape is the pivot: every provider translator
 * already takes it (openai-to-anthropic, openai-to-gemini, openai-to-bedrock), and OpenAI-compatible
 * servers without a Responses API take it as it is. What only OpenAI can run (hosted tools, stored
 * prompts, background responses, conversations) is a 400 here, naming the provider.
 *
 * `previous_response_id` and `item_reference` are the gateway's state, not the translator's: the
 * caller resolves them from the response store and passes the earlier items as `history`.
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type {
  ChatAssistantMessage,
  ChatCompletionRequest,
  ChatMessage,
  ChatResponseFormat,
  ChatTextPart,
  ChatTool,
  ChatToolCall,
  ChatToolChoice,
  ChatUserContentPart,
} from '../../shapes/openai.ts';
import type {
  ResponsesContentPart,
  ResponsesFunctionTool,
  ResponsesRequest,
  ResponsesTextFormat,
} from '../../shapes/responses.ts';
import { asRecord, type JsonRecord } from '../shared/json-record.ts';

export interface ResponsesToChatOptions {
  /** The upstream model id (routing prefix stripped). */
  model: string;
  /** The provider as routed, for messages (`anthropic`, `gemini`, ...). */
  provider: string;
  /** Where the token cap goes: OpenAI's chat takes `max_completion_tokens`, compatible servers `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * The items the model sees before this request's input: the stored conversation of
   * `previous_response_id` (its input and output items, recursively), in Responses item form.
   */
  history?: readonly unknown[];
}

const HOSTED_TOOL_HINT = 'OpenAI runs it; use function tools, or a model on openai/';

/** Fields only OpenAI's own Responses API serves; set to anything but their default, they are refused. */
const OPENAI_ONLY_FIELDS: ReadonlyArray<readonly [string, (value: unknown) => boolean, string]> = [
  ['background', (value) => value === true, 'background responses'],
  ['conversation', (value) => value !== undefined && value !== null, 'conversations'],
  ['prompt', (value) => value !== undefined && value !== null, 'stored prompts'],
];

function refuse(provider: string, what: string, hint: string): never {
  throw new InvalidRequestError(`provider '${provider}' does not serve ${what}: ${hint}`);
}

/** The chat request the provider translators take; throws InvalidRequestError for what cannot be served. */
export function convertResponsesRequestToChat(
  request: ResponsesRequest,
  options: ResponsesToChatOptions,
): ChatCompletionRequest {
  const { provider } = options;
  for (const [field, isSet, what] of OPENAI_ONLY_FIELDS)
    if (isSet(request[field]))
      refuse(provider, `${what} ('${field}')`, 'they are served on openai/ models only');

  const messages: ChatMessage[] = [];
  if (typeof request.instructions === 'string' && request.instructions !== '')
    messages.push({ role: 'system', content: request.instructions });
  const writer = createMessageWriter(messages, provider);
  for (const item of options.history ?? []) writer.add(item);
  if (typeof request.input === 'string') writer.add({ role: 'user', content: request.input });
  else if (Array.isArray(request.input)) for (const item of request.input) writer.add(item);
  if (messages.every((message) => message.role === 'system'))
    throw new InvalidRequestError("'input' must hold at least one message or function call output");

  const chat: ChatCompletionRequest = { model: options.model, messages };
  const { tools, toolChoice } = convertTools(request, provider);
  if (tools !== undefined) chat.tools = tools;
  if (toolChoice !== undefined) chat.tool_choice = toolChoice;
  if (typeof request.parallel_tool_calls === 'boolean')
    chat.parallel_tool_calls = request.parallel_tool_calls;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (typeof request.max_output_tokens === 'number')
    chat[options.maxTokensField ?? 'max_tokens'] = request.max_output_tokens;
  const format = convertTextFormat(request.text?.format);
  if (format !== undefined) chat.response_format = format;
  const user = request.safety_identifier ?? request.user;
  if (typeof user === 'string') chat.user = user;
  if (typeof request.reasoning?.effort === 'string') chat.reasoning_effort = request.reasoning.effort;
  if (request.stream === true) {
    chat.stream = true;
    // Usage is needed for the terminal event and for billing.
    chat.stream_options = { include_usage: true };
  }
  return chat;
}

// Tools (section 7.1: flat function tools -> wrapped; hosted tools refused).

function convertFunctionTool(tool: ResponsesFunctionTool): ChatTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      parameters: asRecord(tool.parameters) ?? { type: 'object', properties: {} },
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    },
  };
}

function toolTypeOf(value: unknown): string {
  const type = asRecord(value)?.type;
  return typeof type === 'string' ? type : String(type);
}

function convertTools(
  request: ResponsesRequest,
  provider: string,
): { tools: ChatTool[] | undefined; toolChoice: ChatToolChoice | undefined } {
  let tools: ChatTool[] | undefined;
  if (Array.isArray(request.tools) && request.tools.length > 0) {
    tools = request.tools.map((tool) => {
      const type = toolTypeOf(tool);
      if (type !== 'function') refuse(provider, `the hosted tool '${type}'`, HOSTED_TOOL_HINT);
      return convertFunctionTool(tool as ResponsesFunctionTool);
    });
  }
  const choice = request.tool_choice;
  if (choice === undefined || choice === null) return { tools, toolChoice: undefined };
  if (typeof choice === 'string') return { tools, toolChoice: choice as ChatToolChoice };
  const record = asRecord(choice) as JsonRecord;
  if (record.type === 'function')
    return { tools, toolChoice: { type: 'function', function: { name: String(record.name) } } };
  if (record.type === 'allowed_tools') {
    // The model sees only the allowed tools; the mode is the choice among them.
    const allowed = new Set(
      (Array.isArray(record.tools) ? record.tools : []).map((tool) => asRecord(tool)?.name),
    );
    return {
      tools: tools?.filter((tool) => allowed.has(tool.function.name)),
      toolChoice: record.mode === 'required' ? 'required' : 'auto',
    };
  }
  return refuse(provider, `tool_choice of type '${toolTypeOf(choice)}'`, HOSTED_TOOL_HINT);
}

function convertTextFormat(format: ResponsesTextFormat | undefined): ChatResponseFormat | undefined {
  if (format === undefined || format === null || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      schema: format.schema,
      ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
      ...(typeof format.description === 'string' ? { description: format.description } : {}),
    },
  };
}

// Items -> messages (section 7.1; the pitfalls of 7.4).

interface MessageWriter {
  add(item: unknown): void;
}

/**
 * Appends items as chat messages. Consecutive function calls (and the assistant text right before
 * them) become one assistant message, since Anthropic needs every tool_use of a turn in one message
 * with the results right after; reasoning items are dropped (another provider's reasoning cannot be
 * replayed, reference section 7.4).
 */
function createMessageWriter(messages: ChatMessage[], provider: string): MessageWriter {
  /** The assistant message function calls of this turn join, while nothing else came between. */
  let openAssistant: ChatAssistantMessage | undefined;
  const add = (item: unknown): void => {
    const record = asRecord(item);
    if (record === undefined || Array.isArray(record))
      throw new InvalidRequestError("each item of 'input' must be an object");
    const type = record.type ?? 'message';
    switch (type) {
      case 'message': {
        const message = convertMessage(record, provider);
        messages.push(message);
        openAssistant = message.role === 'assistant' ? message : undefined;
        return;
      }
      case 'function_call': {
        const call: ChatToolCall = {
          id: stringField(record, 'call_id', 'function_call'),
          type: 'function',
          function: {
            name: stringField(record, 'name', 'function_call'),
            arguments: typeof record.arguments === 'string' ? record.arguments : '',
          },
        };
        if (openAssistant === undefined) {
          openAssistant = { role: 'assistant', content: null, tool_calls: [] };
          messages.push(openAssistant);
        }
        if (openAssistant.tool_calls === undefined) openAssistant.tool_calls = [call];
        else openAssistant.tool_calls.push(call);
        return;
      }
      case 'function_call_output':
        messages.push({
          role: 'tool',
          tool_call_id: stringField(record, 'call_id', 'function_call_output'),
          content: convertToolOutput(record.output, provider),
        });
        openAssistant = undefined;
        return;
      case 'reasoning':
        return;
      case 'item_reference':
        throw new InvalidRequestError(`item_reference '${String(record.id)}' names no stored item`);
      default:
        refuse(provider, `input items of type '${String(type)}'`, HOSTED_TOOL_HINT);
    }
  };
  return { add };
}

function stringField(record: JsonRecord, field: string, itemType: string): string {
  const value = record[field];
  if (typeof value !== 'string')
    throw new InvalidRequestError(`'${field}' of a ${itemType} item must be a string`);
  return value;
}

function partsOf(content: unknown): ResponsesContentPart[] {
  if (!Array.isArray(content))
    throw new InvalidRequestError("a message's 'content' must be a string or an array");
  return content.map((part) => {
    const record = asRecord(part);
    if (record === undefined) throw new InvalidRequestError('each content part must be an object');
    return record as unknown as ResponsesContentPart;
  });
}

/** Text of text parts (`input_text`, `output_text`); other parts are refused where only text fits. */
function textOf(content: unknown, role: string): string {
  if (typeof content === 'string') return content;
  return partsOf(content)
    .map((part) => {
      if (part.type === 'input_text' || part.type === 'output_text') return part.text;
      if (part.type === 'refusal') return part.refusal;
      throw new InvalidRequestError(`${role} messages take text parts only, not '${part.type}'`);
    })
    .join('');
}

function convertMessage(record: JsonRecord, provider: string): ChatMessage {
  const { role, content } = record;
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textOf(content, String(role)) };
    case 'assistant': {
      // Replayed output: output_text parts are the content, refusal parts the refusal.
      if (typeof content === 'string') return { role: 'assistant', content };
      let text = '';
      let refusal = '';
      for (const part of partsOf(content)) {
        if (part.type === 'output_text' || part.type === 'input_text') text += part.text;
        else if (part.type === 'refusal') refusal += part.refusal;
        else throw new InvalidRequestError(`assistant messages take text parts only, not '${part.type}'`);
      }
      return {
        role: 'assistant',
        content: text !== '' || refusal === '' ? text : null,
        ...(refusal === '' ? {} : { refusal }),
      };
    }
    case 'user':
      return {
        role: 'user',
        content:
          typeof content === 'string'
            ? content
            : partsOf(content).map((part) => convertUserPart(part, provider)),
      };
    default:
      throw new InvalidRequestError(
        `message role '${String(role)}' is not one of user, assistant, system, developer`,
      );
  }
}

function convertUserPart(part: ResponsesContentPart, provider: string): ChatUserContentPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'input_image': {
      if (typeof part.image_url !== 'string')
        refuse(provider, 'images named by file_id', 'send image_url (an https or data URL)');
      const detail =
        part.detail === 'low' || part.detail === 'high' || part.detail === 'auto' ? part.detail : undefined;
      return {
        type: 'image_url',
        image_url: { url: part.image_url, ...(detail === undefined ? {} : { detail }) },
      };
    }
    case 'input_file': {
      if (typeof part.file_url === 'string') refuse(provider, 'files named by file_url', 'send file_data');
      return {
        type: 'file',
        file: {
          ...(typeof part.file_data === 'string' ? { file_data: part.file_data } : {}),
          ...(typeof part.file_id === 'string' ? { file_id: part.file_id } : {}),
          ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
        },
      };
    }
    default:
      throw new InvalidRequestError(`user messages do not take '${String(part.type)}' parts`);
  }
}

/** A function_call_output's `output`: a string, or text parts (images in a tool's output are OpenAI's alone). */
function convertToolOutput(output: unknown, provider: string): string | ChatTextPart[] {
  if (typeof output === 'string') return output;
  return partsOf(output).map((part) => {
    if (part.type === 'input_text') return { type: 'text', text: part.text };
    return refuse(provider, `'${part.type}' parts in a function_call_output`, 'send the output as text');
  });
}
