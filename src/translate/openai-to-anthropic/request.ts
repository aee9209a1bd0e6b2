/**
 * OpenAI chat-completions request -> Anthropic Messages request, following the table
 * "OpenAI request → Anthropic request" of reference/providers.md section 2.
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type {
  AnthropicContentBlockParam,
  AnthropicCustomTool,
  AnthropicImageMediaType,
  AnthropicMessagesRequest,
  AnthropicTextBlock,
  AnthropicToolChoice,
  AnthropicToolResultBlock,
} from '../../shapes/anthropic.ts';
import type {
  ChatCompletionRequest,
  ChatResponseFormat,
  ChatTextPart,
  ChatTool,
  ChatToolChoice,
  ChatToolMessage,
  ChatUserContentPart,
} from '../../shapes/openai.ts';
import { chatTextPieces, convertChatMessagesToTurns, type TurnBlockWriter } from '../shared/chat-messages.ts';
import { ANY_OBJECT_SCHEMA, planJsonOutputTool } from '../shared/json-output-tool.ts';
import { convertStopSequences } from '../shared/stop-sequences.ts';
import { sanitizeToolId } from '../shared/tool-calls.ts';
import type { ChatResponseContext } from './response.ts';

/**
 * `max_tokens` when the client sends neither `max_completion_tokens` nor `max_tokens` (Anthropic
 * requires it). First match wins. Claude 2 and the original Claude 3 models cap output at 4096
 * tokens; Claude 3.5 and every later model allow at least 8192. Names are matched anywhere so
 * that Bedrock (`anthropic.claude-...`) and Vertex (`claude-...@date`) ids resolve the same way.
 */
const DEFAULT_MAX_TOKENS: ReadonlyArray<readonly [RegExp, number]> = [
  [/claude-(?:2|instant|3-(?:opus|sonnet|haiku))/, 4096],
  [/claude-/, 8192],
];
const FALLBACK_MAX_TOKENS = 4096;

export function defaultMaxTokensFor(model: string): number {
  return DEFAULT_MAX_TOKENS.find(([pattern]) => pattern.test(model))?.[1] ?? FALLBACK_MAX_TOKENS;
}

/** The gateway's synthetic tool for JSON output (see shared/json-output-tool.ts). */
export { JSON_TOOL_NAME } from '../shared/json-output-tool.ts';

const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
]);

export interface ChatToAnthropicOptions {
  /** The upstream model id (routing prefix stripped); defaults to the request's `model`. */
  model?: string;
  /**
   * The model has native structured output: `json_schema` becomes `output_config.format` instead
   * of the forced JSON tool. `json_object` always uses the tool (there is no native mode for it).
   */
  nativeStructuredOutput?: boolean;
}

export interface AnthropicRequestPlan {
  body: AnthropicMessagesRequest;
  /** What the response and stream translators must know about this request. */
  context: ChatResponseContext;
}

/** Tool-use ids must match `^[a-zA-Z0-9_-]+$`; the same mapping applies to `tool_use` and `tool_result`. */
export function sanitizeToolUseId(id: string): string {
  return sanitizeToolId(id, 'toolu_');
}

interface DataUrl {
  mediaType: string;
  base64: boolean;
  data: string;
}

function parseDataUrl(url: string): DataUrl | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma === -1) return undefined;
  const [mediaType = '', ...parameters] = url.slice(5, comma).split(';');
  return {
    mediaType: mediaType.toLowerCase(),
    base64: parameters.includes('base64'),
    data: url.slice(comma + 1),
  };
}

function convertImageUrl(url: string): AnthropicContentBlockParam {
  const dataUrl = parseDataUrl(url);
  if (dataUrl !== undefined) {
    const mediaType = dataUrl.mediaType === 'image/jpg' ? 'image/jpeg' : dataUrl.mediaType;
    if (!IMAGE_MEDIA_TYPES.has(mediaType))
      throw new InvalidRequestError(
        `image type '${dataUrl.mediaType}' is not supported (jpeg, png, gif, webp)`,
      );
    if (!dataUrl.base64) throw new InvalidRequestError('image data URLs must be base64-encoded');
    return {
      type: 'image',
      source: { type: 'base64', media_type: mediaType as AnthropicImageMediaType, data: dataUrl.data },
    };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw new InvalidRequestError('image_url.url must be an http(s) URL or a base64 data URL');
}

function convertFile(file: {
  file_data?: string;
  file_id?: string;
  filename?: string;
}): AnthropicContentBlockParam {
  const dataUrl = file.file_data === undefined ? undefined : parseDataUrl(file.file_data);
  if (dataUrl === undefined || !dataUrl.base64)
    throw new InvalidRequestError(
      'file parts need file_data as a base64 data URL (file ids are not supported)',
    );
  const title = file.filename === undefined ? {} : { title: file.filename };
  if (dataUrl.mediaType === 'application/pdf')
    return {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: dataUrl.data },
      ...title,
    };
  if (dataUrl.mediaType === 'text/plain') {
    const text = Buffer.from(dataUrl.data, 'base64').toString('utf8');
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...title };
  }
  throw new InvalidRequestError(
    `file type '${dataUrl.mediaType}' is not supported (application/pdf, text/plain)`,
  );
}

function convertUserPart(part: ChatUserContentPart): AnthropicContentBlockParam | undefined {
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'image_url':
      return convertImageUrl(part.image_url?.url ?? '');
    case 'file':
      return convertFile(part.file ?? {});
    case 'input_audio':
      throw new InvalidRequestError('audio input is not supported by this model');
    default:
      throw new InvalidRequestError(`unsupported content part type '${(part as { type?: unknown }).type}'`);
  }
}

/** Anthropic refuses empty text blocks. */
const keepsText = (text: string): boolean => text !== '';

function textBlocks(content: string | ChatTextPart[]): AnthropicTextBlock[] {
  return chatTextPieces(content)
    .filter(keepsText)
    .map((text) => ({ type: 'text', text }));
}

function convertToolResult(message: ChatToolMessage): AnthropicToolResultBlock {
  const block: AnthropicToolResultBlock = {
    type: 'tool_result',
    tool_use_id: sanitizeToolUseId(message.tool_call_id),
  };
  if (typeof message.content === 'string') {
    if (message.content !== '') block.content = message.content;
  } else {
    const parts = textBlocks(message.content);
    if (parts.length > 0) block.content = parts;
  }
  return block;
}

const ANTHROPIC_BLOCKS: TurnBlockWriter<AnthropicContentBlockParam, AnthropicTextBlock> = {
  keepsText,
  text: (text) => ({ type: 'text', text }),
  isText: (block): block is AnthropicTextBlock => block.type === 'text',
  userPart: (part) => {
    const block = convertUserPart(part);
    return block === undefined ? [] : [block];
  },
  toolUse: (id, name, input) => ({ type: 'tool_use', id: sanitizeToolUseId(id), name, input }),
  toolResult: convertToolResult,
  isToolResult: (block) => block.type === 'tool_result',
};

function convertTools(tools: ChatTool[]): AnthropicCustomTool[] {
  return tools.map((tool) => {
    if (tool.type !== 'function' || tool.function === undefined)
      throw new InvalidRequestError(`unsupported tool type '${tool.type}'`);
    const { name, description, parameters, strict } = tool.function;
    return {
      name,
      ...(description === undefined ? {} : { description }),
      input_schema: parameters ?? { type: 'object', properties: {} },
      ...(typeof strict === 'boolean' ? { strict } : {}),
    };
  });
}

function convertToolChoice(choice: ChatToolChoice | null | undefined): AnthropicToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  if (typeof choice === 'object' && choice.type === 'function' && typeof choice.function?.name === 'string')
    return { type: 'tool', name: choice.function.name };
  throw new InvalidRequestError('tool_choice must be none, auto, required or a named function');
}

interface ToolPlan {
  tools?: AnthropicCustomTool[];
  toolChoice?: AnthropicToolChoice;
  outputFormat?: { type: 'json_schema'; schema: Record<string, unknown> };
  jsonToolName?: string;
}

/**
 * Tools, tool choice and JSON output together, since the JSON tool changes both. With JSON asked
 * for: the JSON tool is forced when the client's tools are off the table; otherwise the model must
 * call some tool (`any`), the JSON tool being how it answers.
 */
function planTools(request: ChatCompletionRequest, options: ChatToAnthropicOptions): ToolPlan {
  const tools = convertTools(request.tools ?? []);
  let toolChoice = convertToolChoice(request.tool_choice);
  const format: ChatResponseFormat | undefined = request.response_format;
  const plan: ToolPlan = {};
  const jsonTool =
    format?.type === 'json_schema' && options.nativeStructuredOutput
      ? undefined
      : planJsonOutputTool(
          format,
          tools.map((tool) => tool.name),
        );
  if (format?.type === 'json_schema' && options.nativeStructuredOutput) {
    plan.outputFormat = { type: 'json_schema', schema: format.json_schema?.schema ?? ANY_OBJECT_SCHEMA };
  } else if (jsonTool !== undefined) {
    const { name } = jsonTool;
    tools.push({ name, description: jsonTool.description, input_schema: jsonTool.schema });
    plan.jsonToolName = name;
    const clientToolsUsable = tools.length > 1 && toolChoice?.type !== 'none';
    if (!clientToolsUsable) toolChoice = { type: 'tool', name };
    else if (toolChoice === undefined || toolChoice.type === 'auto') toolChoice = { type: 'any' };
  }
  if (tools.length === 0) return plan;
  plan.tools = tools;
  if (request.parallel_tool_calls === false && toolChoice?.type !== 'none')
    toolChoice = {
      ...(toolChoice ?? { type: 'auto' }),
      disable_parallel_tool_use: true,
    } as AnthropicToolChoice;
  if (toolChoice !== undefined) plan.toolChoice = toolChoice;
  return plan;
}

/** Converts the request; throws InvalidRequestError for what Anthropic cannot express. */
export function convertChatRequestToAnthropic(
  request: ChatCompletionRequest,
  options: ChatToAnthropicOptions = {},
): AnthropicRequestPlan {
  if (typeof request.n === 'number' && request.n > 1)
    throw new InvalidRequestError('n > 1 is not supported by Anthropic models');
  const model = options.model ?? request.model;
  const { system, turns: messages } = convertChatMessagesToTurns(request.messages, ANTHROPIC_BLOCKS);
  const toolPlan = planTools(request, options);
  const stopSequences = convertStopSequences(request.stop);
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? defaultMaxTokensFor(model);
  const body: AnthropicMessagesRequest = { model, max_tokens: maxTokens, messages };
  if (system.length > 0) body.system = system;
  if (toolPlan.tools !== undefined) body.tools = toolPlan.tools;
  if (toolPlan.toolChoice !== undefined) body.tool_choice = toolPlan.toolChoice;
  if (toolPlan.outputFormat !== undefined) body.output_config = { format: toolPlan.outputFormat };
  if (stopSequences.length > 0) body.stop_sequences = stopSequences;
  // OpenAI's range is 0..2, Anthropic's 0..1.
  if (typeof request.temperature === 'number')
    body.temperature = Math.min(1, Math.max(0, request.temperature));
  if (typeof request.top_p === 'number') body.top_p = request.top_p;
  if (typeof request.user === 'string' && request.user !== '') body.metadata = { user_id: request.user };
  if (request.stream === true) body.stream = true;
  const context: ChatResponseContext = { includeUsage: request.stream_options?.include_usage === true };
  if (toolPlan.jsonToolName !== undefined) context.jsonToolName = toolPlan.jsonToolName;
  return { body, context };
}
