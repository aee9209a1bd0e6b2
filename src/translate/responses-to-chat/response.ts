/**
 * OpenAI chat completion -> OpenAI Responses response object (reference/responses-api.md sections
 * 3 and 7.2): the message item (text and refusal parts) then one function_call item per tool
 * call; `finish_reason` to `status` and `incomplete_details`; usage renamed, both detail objects
 * always present. Ids are minted with the Responses prefixes (`resp_`, `msg_`, `fc_`), never the
 * upstream's `chatcmpl-` (section 7.4), and the request's parameters are echoed as OpenAI does.
 */
import type { ChatCompletion, ChatUsage } from '../../shapes/openai.ts';
import type {
  ResponsesOutputItem,
  ResponsesOutputMessage,
  ResponsesRequest,
  ResponsesResponse,
  ResponsesStatus,
  ResponsesUsage,
} from '../../shapes/responses.ts';
import { count } from '../../shapes/usage.ts';
import { createItemIdMinter } from './ids.ts';

/** What a translated response says besides its output: ids, times and the request's echo. */
export interface ResponsesContext {
  /** The `resp_...` id: minted once per request, the same in every event and in the store. */
  id: string;
  /** The request as the client sent it (its parameters are echoed). */
  request: ResponsesRequest;
  /** Mints item ids (`msg_`, `fc_`, `call_`); defaults to ids derived from `id` (ids.ts). */
  generateId?: (prefix: string) => string;
  /** Unix seconds; defaults to now. */
  createdAt?: number;
  now?: () => number;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Chat `finish_reason` -> Responses status and incomplete reason (section 7.2's table). */
export function mapFinishReason(reason: string | null | undefined): {
  status: ResponsesStatus;
  incomplete: ResponsesResponse['incomplete_details'];
} {
  if (reason === 'length') return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter') return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', incomplete: null };
}

/** Chat usage (prompt_tokens includes cached ones, as input_tokens does) -> Responses usage. */
export function convertChatUsageToResponses(usage: ChatUsage | null | undefined): ResponsesUsage {
  const input = count(usage?.prompt_tokens);
  const output = count(usage?.completion_tokens);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: count(usage?.prompt_tokens_details?.cached_tokens) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: count(usage?.completion_tokens_details?.reasoning_tokens) },
    total_tokens: input + output,
  };
}

const orDefault = <T>(value: T | null | undefined, fallback: T): T =>
  value === undefined || value === null ? fallback : value;

/**
 * The response object with everything but what the answer decides (status, output, usage): the
 * request's parameters echoed, OpenAI's defaults where it set none (section 3's required keys).
 */
export function renderResponseShell(context: ResponsesContext, model: string): ResponsesResponse {
  const { request } = context;
  return {
    id: context.id,
    object: 'response',
    created_at: context.createdAt ?? nowSeconds(),
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: typeof request.instructions === 'string' ? request.instructions : null,
    max_output_tokens: typeof request.max_output_tokens === 'number' ? request.max_output_tokens : null,
    model,
    output: [],
    parallel_tool_calls: orDefault(request.parallel_tool_calls, true),
    previous_response_id: orDefault(request.previous_response_id, null),
    reasoning: {
      effort: orDefault(request.reasoning?.effort, null),
      summary: orDefault(request.reasoning?.summary, null),
    },
    service_tier: 'default',
    store: request.store !== false,
    temperature: orDefault(request.temperature, 1),
    text: { format: orDefault(request.text?.format, { type: 'text' }) },
    tool_choice: orDefault(request.tool_choice, 'auto'),
    tools: Array.isArray(request.tools) ? request.tools : [],
    top_p: orDefault(request.top_p, 1),
    truncation: orDefault(request.truncation, 'disabled'),
    usage: null,
    user: orDefault(request.user, null),
    metadata: orDefault(request.metadata, {}),
  };
}

export function convertChatResponseToResponses(
  completion: ChatCompletion,
  context: ResponsesContext,
): ResponsesResponse {
  const generateId = context.generateId ?? createItemIdMinter(context.id);
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const message = choice?.message;
  const { status, incomplete } = mapFinishReason(choice?.finish_reason);
  const output: ResponsesOutputItem[] = [];
  const parts: ResponsesOutputMessage['content'] = [];
  if (typeof message?.content === 'string' && message.content !== '')
    parts.push({ type: 'output_text', text: message.content, annotations: [], logprobs: [] });
  if (typeof message?.refusal === 'string' && message.refusal !== '')
    parts.push({ type: 'refusal', refusal: message.refusal });
  if (parts.length > 0)
    output.push({
      type: 'message',
      id: generateId('msg'),
      role: 'assistant',
      status: status === 'incomplete' ? 'incomplete' : 'completed',
      content: parts,
    });
  for (const call of Array.isArray(message?.tool_calls) ? message.tool_calls : []) {
    output.push({
      type: 'function_call',
      id: generateId('fc'),
      call_id: typeof call.id === 'string' && call.id !== '' ? call.id : generateId('call'),
      name: call.function?.name ?? '',
      arguments: call.function?.arguments ?? '',
      status: 'completed',
    });
  }
  const shell = renderResponseShell(
    { ...context, createdAt: context.createdAt ?? completion.created },
    typeof completion.model === 'string' ? completion.model : '',
  );
  return {
    ...shell,
    status,
    completed_at: (context.now ?? nowSeconds)(),
    incomplete_details: incomplete,
    output,
    usage: convertChatUsageToResponses(completion.usage),
  };
}
