/**
 * Translation between the client's API shape and the upstream's, by pair of shapes (STYLE rule 1):
 * a registry (data) from `<operation>-><upstream shape>` to a per-request plan. Same shape on both
 * sides is passthrough and has no entry here.
 */
import type { ApiShape, Operation } from '../providers/registry.ts';
import type { AnthropicMessagesRequest, AnthropicMessagesResponse } from '../shapes/anthropic.ts';
import type { GeminiGenerateContentResponse } from '../shapes/gemini.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../shapes/openai.ts';
import {
  convertAnthropicRequestToChat,
  convertChatResponseToAnthropic,
  createChatStreamToAnthropicTranslator,
} from '../translate/anthropic-to-openai/index.ts';
import {
  convertAnthropicResponseToChat,
  convertChatRequestToAnthropic,
  createAnthropicStreamToChatTranslator,
} from '../translate/openai-to-anthropic/index.ts';
import {
  convertChatRequestToGemini,
  convertGeminiResponseToChat,
  createGeminiStreamTranslator,
  generateContentPath,
} from '../translate/openai-to-gemini/index.ts';
import type { StreamTranslator } from '../translate/types.ts';
import type { JsonObject } from './validate-body.ts';

/** The shape each inbound operation speaks. */
export const CLIENT_SHAPE: Readonly<Record<Operation, ApiShape>> = {
  chat: 'openai',
  embeddings: 'openai',
  messages: 'anthropic',
};

export interface TranslationPlan {
  /** Appended to the provider's base URL. */
  path: string;
  /** The upstream request body. */
  body: unknown;
  /** Upstream JSON answer -> the client's shape. */
  response(upstream: unknown): unknown;
  /** A fresh stream translator for this request (upstream events -> client events). */
  stream(): StreamTranslator;
}

interface PlanInput {
  body: JsonObject;
  upstreamModel: string;
  stream: boolean;
}

type Planner = (input: PlanInput) => TranslationPlan;

// Translators always emit usage (the client's own choice is applied by the stream observer, which
// drops the usage chunk when the client did not ask): streams must be billed.
const PLANNERS: ReadonlyMap<string, Planner> = new Map<string, Planner>([
  [
    'chat->anthropic',
    ({ body, upstreamModel }) => {
      const plan = convertChatRequestToAnthropic(body as unknown as ChatCompletionRequest, {
        model: upstreamModel,
      });
      const context = { ...plan.context, includeUsage: true, model: upstreamModel };
      return {
        path: '/v1/messages',
        body: plan.body,
        response: (upstream) =>
          convertAnthropicResponseToChat(upstream as AnthropicMessagesResponse, context),
        stream: () => createAnthropicStreamToChatTranslator(context),
      };
    },
  ],
  [
    'messages->openai',
    ({ body, upstreamModel }) => {
      const chat = convertAnthropicRequestToChat(body as unknown as AnthropicMessagesRequest, {
        model: upstreamModel,
      });
      const context = { model: upstreamModel };
      return {
        path: '/chat/completions',
        body: chat,
        response: (upstream) => convertChatResponseToAnthropic(upstream as ChatCompletion, context),
        stream: () => createChatStreamToAnthropicTranslator(context),
      };
    },
  ],
  [
    'chat->gemini',
    ({ body, upstreamModel, stream }) => ({
      path: generateContentPath(upstreamModel, stream),
      body: convertChatRequestToGemini(body as unknown as ChatCompletionRequest),
      response: (upstream) =>
        convertGeminiResponseToChat(upstream as GeminiGenerateContentResponse, { model: upstreamModel }),
      stream: () => createGeminiStreamTranslator({ model: upstreamModel, includeUsage: true }),
    }),
  ],
]);

/** Whether a translation exists for this operation to this upstream shape. */
export function canTranslate(operation: Operation, upstream: ApiShape): boolean {
  return PLANNERS.has(`${operation}->${upstream}`);
}

/** The plan for one request, or undefined when the shapes are the same (passthrough). */
export function planTranslation(
  operation: Operation,
  upstream: ApiShape,
  input: PlanInput,
): TranslationPlan | undefined {
  if (CLIENT_SHAPE[operation] === upstream) return undefined;
  const planner = PLANNERS.get(`${operation}->${upstream}`);
  if (planner === undefined) throw new Error(`no translation from ${operation} to ${upstream}`);
  return planner(input);
}
