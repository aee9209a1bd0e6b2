/**
 * Anthropic Messages request -> OpenAI chat-completions request, for `/v1/messages` on models
 * that are not Anthropic's (reference/providers.md sections 1 and 2, read in reverse).
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type {
  AnthropicContentBlockParam,
  AnthropicCustomTool,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicMessagesRequest,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolChoice,
  AnthropicToolResultBlock,
} from '../../shapes/anthropic.ts';
import type {
  ChatCompletionRequest,
  ChatMessage,
  ChatTool,
  ChatToolCall,
  ChatToolChoice,
  ChatUserContentPart,
} from '../../shapes/openai.ts';
import { sanitizeToolId, stringifyToolInput } from '../shared/tool-calls.ts';

/** Marks a tool result the client flagged with `is_error`; chat completions have no such flag. */
export const TOOL_ERROR_PREFIX = '[tool error] ';

/** Name of the `json_schema` response format made from `output_config.format`. */
const OUTPUT_SCHEMA_NAME = 'output';

export interface AnthropicToChatOptions {
  /** The upstream model id (routing prefix stripped); defaults to the request's `model`. */
  model?: string;
  /** Where the token cap goes; o-series models reject `max_tokens`. Default `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

function imagePart(block: AnthropicImageBlock): ChatUserContentPart {
  const source = block.source;
  if (source?.type === 'base64')
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  if (source?.type === 'url') return { type: 'image_url', image_url: { url: source.url } };
  throw new InvalidRequestError('image blocks need a base64 or url source');
}

function documentPart(block: AnthropicDocumentBlock): ChatUserContentPart {
  const source = block.source;
  if (source?.type === 'base64')
    return {
      type: 'file',
      file: {
        filename: block.title ?? 'document.pdf',
        file_data: `data:${source.media_type};base64,${source.data}`,
      },
    };
  if (source?.type === 'text') return { type: 'text', text: source.data };
  throw new InvalidRequestError('document blocks need a base64 or text source on this model');
}

function unsupported(block: { type?: unknown }): never {
  throw new InvalidRequestError(`content block type '${String(block.type)}' is not supported on this model`);
}

function toolResultText(block: AnthropicToolResultBlock, images: ChatUserContentPart[]): string {
  let text = '';
  if (typeof block.content === 'string') text = block.content;
  else
    for (const part of block.content ?? []) {
      if (part.type === 'text') text += text === '' ? part.text : `\n${part.text}`;
      // Tool messages carry text only; images travel in the user message that follows.
      else if (part.type === 'image') images.push(imagePart(part));
      else unsupported(part);
    }
  return block.is_error === true ? `${TOOL_ERROR_PREFIX}${text}` : text;
}

function convertUserTurn(content: AnthropicContentBlockParam[], messages: ChatMessage[]): void {
  const parts: ChatUserContentPart[] = [];
  const toolImages: ChatUserContentPart[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'tool_result':
        messages.push({
          role: 'tool',
          tool_call_id: sanitizeToolCallId(block.tool_use_id),
          content: toolResultText(block, toolImages),
        });
        break;
      case 'text':
        if (block.text !== '') parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
        parts.push(imagePart(block));
        break;
      case 'document':
        parts.push(documentPart(block));
        break;
      default:
        unsupported(block);
    }
  }
  const all = [...toolImages, ...parts];
  if (all.length === 0) return;
  const only = all[0];
  messages.push({ role: 'user', content: all.length === 1 && only?.type === 'text' ? only.text : all });
}

function convertAssistantTurn(content: AnthropicContentBlockParam[], messages: ChatMessage[]): void {
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        text += block.text;
        break;
      case 'tool_use':
        toolCalls.push({
          id: sanitizeToolCallId(block.id),
          type: 'function',
          function: { name: block.name, arguments: stringifyToolInput(block.input) },
        });
        break;
      case 'thinking':
      case 'redacted_thinking':
        break; // signed for Anthropic only; other models cannot use them
      default:
        unsupported(block);
    }
  }
  if (toolCalls.length > 0)
    messages.push({ role: 'assistant', content: text === '' ? null : text, tool_calls: toolCalls });
  else if (text !== '') messages.push({ role: 'assistant', content: text });
}

/** Keeps ids usable on Anthropic too (`^[a-zA-Z0-9_-]+$`), should the conversation move back there. */
export function sanitizeToolCallId(id: string): string {
  return sanitizeToolId(String(id), 'call_');
}

function systemText(system: string | AnthropicTextBlock[] | undefined): string {
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return '';
  return system
    .filter((block) => block.type === 'text' && block.text !== '')
    .map((block) => block.text)
    .join('\n\n');
}

function convertMessages(request: AnthropicMessagesRequest): ChatMessage[] {
  if (!Array.isArray(request.messages)) throw new InvalidRequestError('messages must be an array');
  const messages: ChatMessage[] = [];
  const system = systemText(request.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const message of request.messages as AnthropicMessageParam[]) {
    const content: AnthropicContentBlockParam[] =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : (message.content ?? []);
    if (!Array.isArray(content))
      throw new InvalidRequestError('message content must be a string or an array');
    if (message.role === 'user') convertUserTurn(content, messages);
    else if (message.role === 'assistant') convertAssistantTurn(content, messages);
    else if (message.role === 'system') {
      const text = systemText(content as AnthropicTextBlock[]);
      if (text !== '') messages.push({ role: 'system', content: text });
    } else throw new InvalidRequestError(`unsupported message role '${String(message.role)}'`);
  }
  return messages;
}

function convertTools(tools: AnthropicTool[]): ChatTool[] {
  return tools.map((tool) => {
    if (!('input_schema' in tool) || (tool.type !== undefined && tool.type !== 'custom'))
      throw new InvalidRequestError(`server tool '${String(tool.type)}' is not available on this model`);
    const { name, description, input_schema, strict } = tool as AnthropicCustomTool;
    return {
      type: 'function',
      function: {
        name,
        ...(typeof description === 'string' ? { description } : {}),
        parameters: input_schema,
        ...(typeof strict === 'boolean' ? { strict } : {}),
      },
    };
  });
}

function convertToolChoice(choice: AnthropicToolChoice): ChatToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    default:
      throw new InvalidRequestError('tool_choice.type must be auto, any, tool or none');
  }
}

export function convertAnthropicRequestToChat(
  request: AnthropicMessagesRequest,
  options: AnthropicToChatOptions = {},
): ChatCompletionRequest {
  const body: ChatCompletionRequest = {
    model: options.model ?? request.model,
    messages: convertMessages(request),
  };
  if (typeof request.max_tokens === 'number')
    body[options.maxTokensField ?? 'max_tokens'] = request.max_tokens;
  if (typeof request.temperature === 'number') body.temperature = request.temperature;
  if (typeof request.top_p === 'number') body.top_p = request.top_p;
  if (Array.isArray(request.stop_sequences) && request.stop_sequences.length > 0)
    body.stop = request.stop_sequences;
  if (Array.isArray(request.tools) && request.tools.length > 0) {
    body.tools = convertTools(request.tools);
    if (request.tool_choice !== undefined) {
      body.tool_choice = convertToolChoice(request.tool_choice);
      if (
        'disable_parallel_tool_use' in request.tool_choice &&
        request.tool_choice.disable_parallel_tool_use === true
      )
        body.parallel_tool_calls = false;
    }
  }
  const schema = request.output_config?.format?.schema;
  if (request.output_config?.format?.type === 'json_schema' && schema !== undefined)
    body.response_format = { type: 'json_schema', json_schema: { name: OUTPUT_SCHEMA_NAME, schema } };
  const userId = request.metadata?.user_id;
  if (typeof userId === 'string' && userId !== '') body.user = userId;
  if (request.stream === true) {
    body.stream = true;
    // The usage-only chunk is how the translated stream learns the token counts.
    body.stream_options = { include_usage: true };
  }
  return body;
}
