/**
 * OpenAI chat-completions request -> Bedrock Converse request, following the table "OpenAI |
 * Converse" of reference/providers.md section 4. The model id goes into the path (see
 * converseModelPath), not the body.
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type {
  BedrockContentBlock,
  BedrockConverseRequest,
  BedrockDocumentFormat,
  BedrockImageFormat,
  BedrockInferenceConfig,
  BedrockMessage,
  BedrockTool,
  BedrockToolChoice,
  BedrockToolResultBlock,
} from '../../shapes/bedrock.ts';
import type {
  ChatCompletionRequest,
  ChatResponseFormat,
  ChatTextPart,
  ChatTool,
  ChatToolChoice,
  ChatToolMessage,
} from '../../shapes/openai.ts';
import { convertChatMessagesToTurns, type TurnBlockWriter } from '../shared/chat-messages.ts';
import { ANY_OBJECT_SCHEMA, planJsonOutputTool } from '../shared/json-output-tool.ts';
import { convertStopSequences } from '../shared/stop-sequences.ts';
import { sanitizeToolId } from '../shared/tool-calls.ts';
import type { ConverseResponseContext } from './response.ts';

/** The gateway's synthetic tool for JSON output (see shared/json-output-tool.ts). */
export { JSON_TOOL_NAME } from '../shared/json-output-tool.ts';

const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} };

/**
 * Stands in for an empty tool result: Converse refuses blank text blocks, and a text block (not
 * `json`) is the result type every Converse model takes.
 */
const EMPTY_TOOL_RESULT_TEXT = '(empty result)';

const IMAGE_FORMATS: ReadonlyMap<string, BedrockImageFormat> = new Map([
  ['image/png', 'png'],
  ['image/jpeg', 'jpeg'],
  ['image/jpg', 'jpeg'],
  ['image/gif', 'gif'],
  ['image/webp', 'webp'],
]);

const DOCUMENT_FORMATS: ReadonlyMap<string, BedrockDocumentFormat> = new Map([
  ['application/pdf', 'pdf'],
  ['text/csv', 'csv'],
  ['application/msword', 'doc'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['application/vnd.ms-excel', 'xls'],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
  ['text/html', 'html'],
  ['text/plain', 'txt'],
  ['text/markdown', 'md'],
]);

export interface ConverseRequestPlan {
  body: BedrockConverseRequest;
  /** What the response and stream translators must know about this request. */
  context: ConverseResponseContext;
}

/** `/model/{id}/converse[-stream]`; ids carry `:` and ARNs `/`, so the id is one encoded segment. */
export function converseModelPath(model: string, stream: boolean): string {
  return `/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`;
}

/** Tool-use ids must match `^[a-zA-Z0-9_-]+$` (at most 64); the same mapping applies to calls and results. */
function sanitizeToolUseId(id: string): string {
  return sanitizeToolId(id, 'tooluse_', 64);
}

function parseBase64DataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma === -1) return undefined;
  const [mediaType = '', ...parameters] = url.slice(5, comma).split(';');
  if (!parameters.includes('base64')) return undefined;
  return { mediaType: mediaType.toLowerCase(), data: url.slice(comma + 1) };
}

/** Converse takes image bytes (or S3), never a URL: only base64 data URLs can be sent. */
function convertImage(url: string): BedrockContentBlock {
  const dataUrl = parseBase64DataUrl(url);
  if (dataUrl === undefined)
    throw new InvalidRequestError(
      'images for Bedrock models must be base64 data URLs (data:image/...;base64,...)',
    );
  const format = IMAGE_FORMATS.get(dataUrl.mediaType);
  if (format === undefined)
    throw new InvalidRequestError(
      `image type '${dataUrl.mediaType}' is not supported (jpeg, png, gif, webp)`,
    );
  return { image: { format, source: { bytes: dataUrl.data } } };
}

/** Document names allow letters, digits, single spaces, hyphens, parentheses and square brackets. */
function documentName(filename: string | undefined, index: number): string {
  const base = (filename ?? '').replace(/\.[A-Za-z0-9]+$/, '');
  const clean = base
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean === '' ? `document-${index + 1}` : clean.slice(0, 200);
}

function convertFile(
  file: { file_data?: string; file_id?: string; filename?: string },
  index: number,
): BedrockContentBlock {
  const dataUrl = file.file_data === undefined ? undefined : parseBase64DataUrl(file.file_data);
  if (dataUrl === undefined)
    throw new InvalidRequestError(
      'file parts need file_data as a base64 data URL (file ids are not supported)',
    );
  const format = DOCUMENT_FORMATS.get(dataUrl.mediaType);
  if (format === undefined)
    throw new InvalidRequestError(`file type '${dataUrl.mediaType}' is not supported by Bedrock models`);
  return { document: { format, name: documentName(file.filename, index), source: { bytes: dataUrl.data } } };
}

/** Converse refuses blank text blocks, so whitespace-only text is dropped too. */
const keepsText = (text: string): boolean => text.trim() !== '';

function joinText(content: string | ChatTextPart[] | null | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function convertToolResult(message: ChatToolMessage): BedrockContentBlock {
  const text = joinText(message.content);
  const toolResult: BedrockToolResultBlock = {
    toolUseId: sanitizeToolUseId(message.tool_call_id),
    // Converse refuses blank text, yet a tool that printed nothing still answers its call.
    content: [{ text: text.trim() === '' ? EMPTY_TOOL_RESULT_TEXT : text }],
  };
  return { toolResult };
}

/** One per request: document names are numbered across the conversation. */
function createConverseBlockWriter(): TurnBlockWriter<BedrockContentBlock, { text: string }> {
  let documents = 0;
  return {
    keepsText,
    text: (text) => ({ text }),
    isText: (block): block is { text: string } => 'text' in block,
    userPart(part) {
      switch (part.type) {
        case 'text':
          return typeof part.text === 'string' && keepsText(part.text) ? [{ text: part.text }] : [];
        case 'image_url':
          return [convertImage(part.image_url?.url ?? '')];
        case 'file':
          return [convertFile(part.file ?? {}, documents++)];
        case 'input_audio':
          throw new InvalidRequestError('audio input is not supported by Bedrock models');
        default:
          throw new InvalidRequestError(
            `unsupported content part type '${(part as { type?: unknown }).type}'`,
          );
      }
    },
    toolUse: (id, name, input) => ({ toolUse: { toolUseId: sanitizeToolUseId(id), name, input } }),
    toolResult: convertToolResult,
    isToolResult: (block) => 'toolResult' in block,
  };
}

function convertTools(tools: ChatTool[]): BedrockTool[] {
  return tools.map((tool) => {
    if (tool.type !== 'function' || tool.function === undefined)
      throw new InvalidRequestError(`unsupported tool type '${tool.type}'`);
    const { name, description, parameters } = tool.function;
    return {
      toolSpec: {
        name,
        ...(description === undefined || description === '' ? {} : { description }),
        inputSchema: { json: parameters ?? EMPTY_OBJECT_SCHEMA },
      },
    };
  });
}

/** `none` has no Converse equivalent: it is handled by the caller (omit the tools, or keep them on auto). */
function convertToolChoice(
  choice: ChatToolChoice | null | undefined,
): BedrockToolChoice | 'none' | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  if (choice === 'none') return 'none';
  if (typeof choice === 'object' && choice.type === 'function' && typeof choice.function?.name === 'string')
    return { tool: { name: choice.function.name } };
  throw new InvalidRequestError('tool_choice must be none, auto, required or a named function');
}

/** Tool names used by toolUse blocks in the history. */
function toolNamesInHistory(messages: BedrockMessage[]): string[] {
  const names = new Set<string>();
  for (const message of messages)
    for (const block of message.content) if ('toolUse' in block) names.add(block.toolUse.name);
  return [...names];
}

const declaredToolNames = (tools: BedrockTool[]): string[] =>
  tools.map((tool) => ('toolSpec' in tool ? tool.toolSpec.name : ''));

const hasToolBlocks = (messages: BedrockMessage[]): boolean =>
  messages.some((message) => message.content.some((block) => 'toolUse' in block || 'toolResult' in block));

/**
 * Tools, tool choice and JSON output together (the JSON tool changes both). Converse refuses a
 * history with toolUse/toolResult blocks but no toolConfig, so such a history keeps its tools
 * (on auto, even for tool_choice `none`) and tools used in it but no longer declared are
 * declared with an open schema.
 */
function planTools(
  request: ChatCompletionRequest,
  messages: BedrockMessage[],
): { toolConfig?: BedrockConverseRequest['toolConfig']; jsonToolName?: string } {
  let tools = convertTools(request.tools ?? []);
  const choice = convertToolChoice(request.tool_choice);
  let toolChoice: BedrockToolChoice | undefined = choice === 'none' ? undefined : choice;
  if (choice === 'none' && !hasToolBlocks(messages)) tools = [];
  const format: ChatResponseFormat | undefined = request.response_format;
  const jsonTool = planJsonOutputTool(format, declaredToolNames(tools));
  const jsonToolName = jsonTool?.name;
  if (jsonTool !== undefined) {
    const clientToolsUsable = tools.length > 0 && choice !== 'none';
    tools.push({
      toolSpec: {
        name: jsonTool.name,
        description: jsonTool.description,
        inputSchema: { json: jsonTool.schema },
      },
    });
    if (!clientToolsUsable) toolChoice = { tool: { name: jsonTool.name } };
    else if (toolChoice === undefined || 'auto' in toolChoice) toolChoice = { any: {} };
  }
  if (hasToolBlocks(messages)) {
    const declared = new Set(declaredToolNames(tools));
    for (const name of toolNamesInHistory(messages))
      if (!declared.has(name))
        tools.push({
          toolSpec: {
            name,
            description: 'A tool called earlier in this conversation.',
            inputSchema: { json: ANY_OBJECT_SCHEMA },
          },
        });
  }
  if (tools.length === 0) return {};
  return {
    toolConfig: { tools, ...(toolChoice === undefined ? {} : { toolChoice }) },
    ...(jsonToolName === undefined ? {} : { jsonToolName }),
  };
}

/** Converts the request; throws InvalidRequestError for what Converse cannot express. */
export function convertChatRequestToConverse(request: ChatCompletionRequest): ConverseRequestPlan {
  if (typeof request.n === 'number' && request.n > 1)
    throw new InvalidRequestError('n > 1 is not supported by Bedrock models');
  const { system, turns: messages } = convertChatMessagesToTurns(
    request.messages,
    createConverseBlockWriter(),
  );
  const { toolConfig, jsonToolName } = planTools(request, messages);
  const inferenceConfig: BedrockInferenceConfig = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (typeof maxTokens === 'number') inferenceConfig.maxTokens = maxTokens;
  // OpenAI's range is 0..2; Bedrock models take 0..1.
  if (typeof request.temperature === 'number')
    inferenceConfig.temperature = Math.min(1, Math.max(0, request.temperature));
  if (typeof request.top_p === 'number') inferenceConfig.topP = request.top_p;
  const stopSequences = convertStopSequences(request.stop);
  if (stopSequences.length > 0) inferenceConfig.stopSequences = stopSequences;
  const body: BedrockConverseRequest = { messages };
  if (system.length > 0) body.system = system;
  if (Object.keys(inferenceConfig).length > 0) body.inferenceConfig = inferenceConfig;
  if (toolConfig !== undefined) body.toolConfig = toolConfig;
  const context: ConverseResponseContext = { includeUsage: request.stream_options?.include_usage === true };
  if (jsonToolName !== undefined) context.jsonToolName = jsonToolName;
  return { body, context };
}
