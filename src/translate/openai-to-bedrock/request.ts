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
  BedrockSystemBlock,
  BedrockTool,
  BedrockToolChoice,
  BedrockToolResultBlock,
} from '../../shapes/bedrock.ts';
import type {
  ChatAssistantMessage,
  ChatCompletionRequest,
  ChatResponseFormat,
  ChatTextPart,
  ChatTool,
  ChatToolChoice,
  ChatToolMessage,
  ChatUserContentPart,
} from '../../shapes/openai.ts';
import { parseToolArguments, sanitizeToolId } from '../shared/tool-calls.ts';
import type { ConverseResponseContext } from './response.ts';

/** The gateway's synthetic tool for JSON output ("forced tool `json`" in the reference). */
export const JSON_TOOL_NAME = 'json';

const ANY_OBJECT_SCHEMA = { type: 'object', additionalProperties: true };
const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} };

/** Stands in for a missing first user turn (Converse conversations start with the user). */
const OPENING_USER_TEXT = '.';

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

/** Converse refuses blank text blocks, so empty text is dropped. */
function textBlocks(content: string | ChatTextPart[] | null | undefined): Array<{ text: string }> {
  if (typeof content === 'string') return content.trim() === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: Array<{ text: string }> = [];
  for (const part of content) {
    const text = part.type === 'text' ? part.text : (part as { refusal?: string }).refusal;
    if (typeof text === 'string' && text.trim() !== '') blocks.push({ text });
  }
  return blocks;
}

function joinText(content: string | ChatTextPart[] | null | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function convertUserContent(
  content: ChatUserContentPart[] | string,
  documents: { count: number },
): BedrockContentBlock[] {
  if (typeof content === 'string') return textBlocks(content);
  if (!Array.isArray(content))
    throw new InvalidRequestError('user message content must be a string or an array of parts');
  const blocks: BedrockContentBlock[] = [];
  for (const part of content) {
    switch (part.type) {
      case 'text':
        blocks.push(...textBlocks(part.text));
        break;
      case 'image_url':
        blocks.push(convertImage(part.image_url?.url ?? ''));
        break;
      case 'file':
        blocks.push(convertFile(part.file ?? {}, documents.count++));
        break;
      case 'input_audio':
        throw new InvalidRequestError('audio input is not supported by Bedrock models');
      default:
        throw new InvalidRequestError(`unsupported content part type '${(part as { type?: unknown }).type}'`);
    }
  }
  return blocks;
}

function convertAssistant(message: ChatAssistantMessage): BedrockContentBlock[] {
  const blocks: BedrockContentBlock[] = textBlocks(
    message.content as string | ChatTextPart[] | null | undefined,
  );
  if (blocks.length === 0 && typeof message.refusal === 'string' && message.refusal.trim() !== '')
    blocks.push({ text: message.refusal });
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function' || call.function === undefined)
      throw new InvalidRequestError(`unsupported tool call type '${call.type}'`);
    blocks.push({
      toolUse: {
        toolUseId: sanitizeToolUseId(call.id),
        name: call.function.name,
        input: parseToolArguments(call.function.arguments),
      },
    });
  }
  return blocks;
}

function convertToolResult(message: ChatToolMessage): BedrockContentBlock {
  if (typeof message.tool_call_id !== 'string')
    throw new InvalidRequestError('tool messages need a tool_call_id');
  const text = joinText(message.content);
  const toolResult: BedrockToolResultBlock = {
    toolUseId: sanitizeToolUseId(message.tool_call_id),
    // Converse refuses blank text, yet a tool that printed nothing still answers its call.
    content: [{ text: text.trim() === '' ? EMPTY_TOOL_RESULT_TEXT : text }],
  };
  return { toolResult };
}

/** Appends blocks as a turn, merging into the previous turn of the same role (roles must alternate). */
function appendTurn(
  turns: BedrockMessage[],
  role: BedrockMessage['role'],
  blocks: BedrockContentBlock[],
): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === role) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}

function convertMessages(request: ChatCompletionRequest): {
  system: BedrockSystemBlock[];
  messages: BedrockMessage[];
} {
  if (!Array.isArray(request.messages)) throw new InvalidRequestError('messages must be an array');
  const system: BedrockSystemBlock[] = [];
  const turns: BedrockMessage[] = [];
  const documents = { count: 0 };
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        // Converse has no mid-conversation system turn: every system message is hoisted.
        system.push(...textBlocks(message.content));
        break;
      case 'user':
        appendTurn(turns, 'user', convertUserContent(message.content, documents));
        break;
      case 'assistant':
        appendTurn(turns, 'assistant', convertAssistant(message));
        break;
      case 'tool':
        appendTurn(turns, 'user', [convertToolResult(message)]);
        break;
      default:
        throw new InvalidRequestError(`unsupported message role '${(message as { role?: unknown }).role}'`);
    }
  }
  if (turns.length === 0) throw new InvalidRequestError('messages must contain a user or assistant message');
  for (const turn of turns) {
    // Tool results answer the previous assistant turn and come first in the user turn.
    if (turn.role === 'user')
      turn.content = [
        ...turn.content.filter((block) => 'toolResult' in block),
        ...turn.content.filter((block) => !('toolResult' in block)),
      ];
  }
  if (turns[0]?.role === 'assistant') turns.unshift({ role: 'user', content: [{ text: OPENING_USER_TEXT }] });
  trimPrefill(turns);
  return { system, messages: turns };
}

/** A trailing assistant turn is a prefill, which must not end in whitespace. */
function trimPrefill(turns: BedrockMessage[]): void {
  const last = turns.at(-1);
  const block = last?.content.at(-1);
  if (last?.role !== 'assistant' || block === undefined || !('text' in block)) return;
  block.text = block.text.trimEnd();
  if (block.text !== '') return;
  last.content.pop();
  if (last.content.length === 0) turns.pop();
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
function convertToolChoice(choice: ChatToolChoice | undefined): BedrockToolChoice | 'none' | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  if (choice === 'none') return 'none';
  if (typeof choice === 'object' && choice.type === 'function' && typeof choice.function?.name === 'string')
    return { tool: { name: choice.function.name } };
  throw new InvalidRequestError('tool_choice must be none, auto, required or a named function');
}

function pickJsonToolName(tools: BedrockTool[]): string {
  const taken = new Set(tools.map((tool) => ('toolSpec' in tool ? tool.toolSpec.name : '')));
  if (!taken.has(JSON_TOOL_NAME)) return JSON_TOOL_NAME;
  for (let suffix = 2; ; suffix++)
    if (!taken.has(`${JSON_TOOL_NAME}_${suffix}`)) return `${JSON_TOOL_NAME}_${suffix}`;
}

/** Tool names used by toolUse blocks in the history. */
function toolNamesInHistory(messages: BedrockMessage[]): string[] {
  const names = new Set<string>();
  for (const message of messages)
    for (const block of message.content) if ('toolUse' in block) names.add(block.toolUse.name);
  return [...names];
}

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
  let jsonToolName: string | undefined;
  if (format?.type === 'json_schema' || format?.type === 'json_object') {
    const schemaFormat = format.type === 'json_schema' ? format.json_schema : undefined;
    jsonToolName = pickJsonToolName(tools);
    const clientToolsUsable = tools.length > 0 && choice !== 'none';
    tools.push({
      toolSpec: {
        name: jsonToolName,
        description:
          schemaFormat?.description ??
          'Answer with the final response as JSON by calling this tool with it as input.',
        inputSchema: { json: schemaFormat?.schema ?? ANY_OBJECT_SCHEMA },
      },
    });
    if (!clientToolsUsable) toolChoice = { tool: { name: jsonToolName } };
    else if (toolChoice === undefined || 'auto' in toolChoice) toolChoice = { any: {} };
  }
  if (hasToolBlocks(messages)) {
    const declared = new Set(tools.map((tool) => ('toolSpec' in tool ? tool.toolSpec.name : '')));
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

function convertStop(stop: string | string[] | null | undefined): string[] {
  if (typeof stop === 'string') return stop === '' ? [] : [stop];
  return Array.isArray(stop)
    ? stop.filter((sequence) => typeof sequence === 'string' && sequence !== '')
    : [];
}

/** Converts the request; throws InvalidRequestError for what Converse cannot express. */
export function convertChatRequestToConverse(request: ChatCompletionRequest): ConverseRequestPlan {
  if (typeof request.n === 'number' && request.n > 1)
    throw new InvalidRequestError('n > 1 is not supported by Bedrock models');
  const { system, messages } = convertMessages(request);
  const { toolConfig, jsonToolName } = planTools(request, messages);
  const inferenceConfig: BedrockInferenceConfig = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (typeof maxTokens === 'number') inferenceConfig.maxTokens = maxTokens;
  // OpenAI's range is 0..2; Bedrock models take 0..1.
  if (typeof request.temperature === 'number')
    inferenceConfig.temperature = Math.min(1, Math.max(0, request.temperature));
  if (typeof request.top_p === 'number') inferenceConfig.topP = request.top_p;
  const stopSequences = convertStop(request.stop);
  if (stopSequences.length > 0) inferenceConfig.stopSequences = stopSequences;
  const body: BedrockConverseRequest = { messages };
  if (system.length > 0) body.system = system;
  if (Object.keys(inferenceConfig).length > 0) body.inferenceConfig = inferenceConfig;
  if (toolConfig !== undefined) body.toolConfig = toolConfig;
  const context: ConverseResponseContext = { includeUsage: request.stream_options?.include_usage === true };
  if (jsonToolName !== undefined) context.jsonToolName = jsonToolName;
  return { body, context };
}
