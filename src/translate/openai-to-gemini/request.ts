/**
 * OpenAI chat-completions request → Gemini generateContent request. Pure: no I/O, no clock.
 *
 * Mapping follows providers.md §1 and §3 "Request and OpenAI → Gemini mapping":
 * system/developer → systemInstruction; user/tool → role "user"; assistant → role "model";
 * adjacent turns of the same role merged; tool results become functionResponse parts named after the
 * assistant tool call they answer; tools → one functionDeclarations entry with converted schemas;
 * tool_choice → toolConfig.functionCallingConfig; sampling and output options → generationConfig.
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type {
  GeminiContent,
  GeminiFunctionCallingMode,
  GeminiFunctionDeclaration,
  GeminiGenerateContentRequest,
  GeminiGenerationConfig,
  GeminiPart,
  GeminiRole,
  GeminiToolConfig,
} from '../../shapes/gemini.ts';
import type {
  ChatAssistantMessage,
  ChatCompletionRequest,
  ChatTextPart,
  ChatTool,
  ChatToolChoice,
  ChatToolMessage,
  ChatUserContentPart,
} from '../../shapes/openai.ts';
import { parseToolArguments } from '../shared/tool-calls.ts';
import { convertMediaUrl } from './media.ts';
import { convertJsonSchemaToGemini } from './schema.ts';

export interface GeminiRequestOptions {
  /**
   * Put system and developer text at the start of the first user turn instead of
   * `systemInstruction`, which Gemma models refuse. Defaults to true for `gemma-*` models.
   */
  inlineSystemInstruction?: boolean;
  /**
   * The upstream fetches `gs://` and https file URIs itself (Vertex). The Gemini API does not:
   * there only data URLs, Files-API URIs and YouTube links are accepted (see media.ts).
   */
  remoteFileUris?: boolean;
}

/**
 * Gemini 3 refuses replayed functionCall parts without the signature it issued; history that
 * comes from an OpenAI client has none, and this is the documented sentinel for that case
 * (ai.google.dev/gemini-api/docs/thought-signatures).
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** `/v1beta/models/{model}:{method}`; the model id without the routing prefix, `models/` optional. */
export function geminiModelPath(model: string, method: string): string {
  return `/v1beta/models/${encodeURIComponent(model.replace(/^models\//, ''))}:${method}`;
}

/** `/v1beta/models/{model}:generateContent`, or the SSE form of `:streamGenerateContent`. */
export function generateContentPath(model: string, stream: boolean): string {
  return stream
    ? geminiModelPath(model, 'streamGenerateContent?alt=sse')
    : geminiModelPath(model, 'generateContent');
}

/** Converts an OpenAI chat request to a Gemini generateContent body. Throws InvalidRequestError. */
export function convertChatRequestToGemini(
  request: ChatCompletionRequest,
  options: GeminiRequestOptions = {},
): GeminiGenerateContentRequest {
  if (!Array.isArray(request.messages)) throw new InvalidRequestError('messages must be an array');
  const inlineSystem = options.inlineSystemInstruction ?? /(^|\/)gemma-/i.test(request.model);

  const systemParts: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const toolNames = new Map<string, string>();

  const append = (role: GeminiRole, parts: GeminiPart[]): void => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts = [...(last.parts ?? []), ...parts];
    else contents.push({ role, parts });
  };

  for (const [position, message] of request.messages.entries()) {
    switch (message.role) {
      case 'system':
      case 'developer':
        systemParts.push(...convertTextOnly(message.content, position).map((text) => ({ text })));
        break;
      case 'user':
        append('user', convertUserContent(message.content, position, options.remoteFileUris === true));
        break;
      case 'assistant':
        append('model', convertAssistantMessage(message, position, toolNames));
        break;
      case 'tool':
        append('user', [convertToolResult(message, position, toolNames)]);
        break;
      case 'function':
        throw new InvalidRequestError(
          `messages[${position}]: legacy function messages are not supported for Gemini models; use tool messages`,
        );
      default:
        throw new InvalidRequestError(
          `messages[${position}].role '${(message as { role: unknown }).role}' is not supported for Gemini models`,
        );
    }
  }

  const body: GeminiGenerateContentRequest = { contents };
  if (systemParts.length > 0) {
    const first = contents[0];
    if (inlineSystem || contents.length === 0) {
      // Gemma has no system slot, and Gemini refuses a request without contents: the
      // instructions open the first user turn instead.
      if (first?.role === 'user') first.parts = [...systemParts, ...(first.parts ?? [])];
      else contents.unshift({ role: 'user', parts: systemParts });
    } else {
      body.systemInstruction = { parts: systemParts };
    }
  }

  const declarations = convertTools(request.tools);
  if (declarations.length > 0) {
    body.tools = [{ functionDeclarations: declarations }];
    const toolConfig = convertToolChoice(request.tool_choice);
    if (toolConfig !== undefined) body.toolConfig = toolConfig;
  }

  const generationConfig = convertGenerationConfig(request);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

// Messages

/** System, developer and tool content: a string or text parts. Empty text is dropped (Gemini refuses it). */
function convertTextOnly(content: unknown, position: number): string[] {
  if (typeof content === 'string') return content === '' ? [] : [content];
  if (!Array.isArray(content)) {
    throw new InvalidRequestError(`messages[${position}].content must be a string or an array of parts`);
  }
  return content.map((part: unknown, index) => {
    const text = (part as ChatTextPart | null)?.type === 'text' ? (part as ChatTextPart).text : undefined;
    if (typeof text !== 'string') {
      throw new InvalidRequestError(`messages[${position}].content[${index}] must be a text part`);
    }
    return text;
  });
}

function convertUserContent(content: unknown, position: number, remoteFileUris: boolean): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) {
    throw new InvalidRequestError(`messages[${position}].content must be a string or an array of parts`);
  }
  const parts: GeminiPart[] = [];
  for (const [index, part] of content.entries()) {
    const converted = convertContentPart(
      part as ChatUserContentPart,
      `messages[${position}].content[${index}]`,
      remoteFileUris,
    );
    if (converted !== undefined) parts.push(converted);
  }
  return parts;
}

function convertContentPart(
  part: ChatUserContentPart,
  where: string,
  remoteFileUris: boolean,
): GeminiPart | undefined {
  switch (part?.type) {
    case 'text':
      if (typeof part.text !== 'string') throw new InvalidRequestError(`${where}.text must be a string`);
      return part.text === '' ? undefined : { text: part.text };
    case 'image_url': {
      const url = part.image_url?.url;
      if (typeof url !== 'string') throw new InvalidRequestError(`${where}.image_url.url must be a string`);
      return convertMediaUrl(url, where, remoteFileUris);
    }
    case 'input_audio': {
      const { data, format } = part.input_audio ?? {};
      if (typeof data !== 'string' || typeof format !== 'string') {
        throw new InvalidRequestError(`${where}.input_audio needs data and format`);
      }
      return { inlineData: { mimeType: `audio/${format}`, data } };
    }
    case 'file': {
      const data = part.file?.file_data;
      if (typeof data !== 'string') {
        throw new InvalidRequestError(
          `${where}: only inline file_data (a data URL) is supported for Gemini models`,
        );
      }
      return convertMediaUrl(data, where, remoteFileUris);
    }
    default:
      throw new InvalidRequestError(
        `${where}: content part type '${(part as { type?: unknown })?.type}' is not supported for Gemini models`,
      );
  }
}

function convertAssistantMessage(
  message: ChatAssistantMessage,
  position: number,
  toolNames: Map<string, string>,
): GeminiPart[] {
  const parts: GeminiPart[] = [];
  if (typeof message.content === 'string') {
    if (message.content !== '') parts.push({ text: message.content });
  } else if (Array.isArray(message.content)) {
    for (const [index, part] of message.content.entries()) {
      // Assistant history may hold refusal parts; they were text the model wrote.
      const text =
        (part as { text?: unknown; refusal?: unknown }).text ?? (part as { refusal?: unknown }).refusal;
      if (typeof text !== 'string') {
        throw new InvalidRequestError(`messages[${position}].content[${index}] must be a text part`);
      }
      if (text !== '') parts.push({ text });
    }
  }
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    const name = call?.function?.name;
    if (typeof name !== 'string' || name === '') {
      throw new InvalidRequestError(`messages[${position}].tool_calls[${index}].function.name is required`);
    }
    if (typeof call.id === 'string') toolNames.set(call.id, name);
    parts.push({
      functionCall: { name, args: parseToolArguments(call.function.arguments) },
      thoughtSignature: SKIP_THOUGHT_SIGNATURE,
    });
  }
  return parts;
}

function convertToolResult(
  message: ChatToolMessage,
  position: number,
  toolNames: Map<string, string>,
): GeminiPart {
  const name = toolNames.get(message.tool_call_id);
  if (name === undefined) {
    throw new InvalidRequestError(
      `messages[${position}].tool_call_id '${message.tool_call_id}' matches no earlier assistant tool call`,
    );
  }
  const content = convertTextOnly(message.content, position).join('');
  // `response` must be an object: the tool's text is wrapped, as providers.md §3 prescribes.
  return { functionResponse: { name, response: { content } } };
}

// Tools and options

function convertTools(tools: ChatTool[] | null | undefined): GeminiFunctionDeclaration[] {
  if (tools === undefined || tools === null) return [];
  return tools.map((tool, index) => {
    if (tool?.type !== 'function' || typeof tool.function?.name !== 'string') {
      throw new InvalidRequestError(
        `tools[${index}]: only function tools with a name are supported for Gemini`,
      );
    }
    const declaration: GeminiFunctionDeclaration = { name: tool.function.name };
    if (typeof tool.function.description === 'string' && tool.function.description !== '') {
      declaration.description = tool.function.description;
    }
    const parameters = convertJsonSchemaToGemini(tool.function.parameters);
    if (parameters !== undefined) declaration.parameters = parameters;
    return declaration;
  });
}

function convertToolChoice(choice: ChatToolChoice | null | undefined): GeminiToolConfig | undefined {
  if (choice === undefined || choice === null) return undefined;
  const modes: Record<string, GeminiFunctionCallingMode> = { none: 'NONE', auto: 'AUTO', required: 'ANY' };
  if (typeof choice === 'string') {
    const mode = modes[choice];
    if (mode === undefined) throw new InvalidRequestError(`tool_choice '${choice}' is not supported`);
    return { functionCallingConfig: { mode } };
  }
  const name = choice?.function?.name;
  if (choice?.type !== 'function' || typeof name !== 'string') {
    throw new InvalidRequestError('tool_choice must name a function');
  }
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } };
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function convertGenerationConfig(request: ChatCompletionRequest): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (isNumber(request.temperature)) config.temperature = request.temperature;
  if (isNumber(request.top_p)) config.topP = request.top_p;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (isNumber(maxTokens)) config.maxOutputTokens = maxTokens;
  if (typeof request.stop === 'string') config.stopSequences = [request.stop];
  else if (Array.isArray(request.stop) && request.stop.length > 0) config.stopSequences = request.stop;
  if (isNumber(request.n)) config.candidateCount = request.n;
  if (isNumber(request.seed)) config.seed = request.seed;
  if (isNumber(request.presence_penalty)) config.presencePenalty = request.presence_penalty;
  if (isNumber(request.frequency_penalty)) config.frequencyPenalty = request.frequency_penalty;
  if (request.logprobs === true) {
    config.responseLogprobs = true;
    if (isNumber(request.top_logprobs)) config.logprobs = request.top_logprobs;
  }

  const format = request.response_format;
  if (format?.type === 'json_object') {
    config.responseMimeType = 'application/json';
  } else if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    const schema = convertJsonSchemaToGemini(format.json_schema?.schema);
    if (schema !== undefined) config.responseSchema = schema;
  } else if (format !== undefined && format !== null && format.type !== 'text') {
    throw new InvalidRequestError(
      `response_format type '${(format as { type: unknown }).type}' is not supported`,
    );
  }
  return config;
}
