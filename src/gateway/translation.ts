/**
 * Translation between the client's API shape and the upstream's, by pair of shapes (STYLE rule 1):
 * a registry (data) from `<operation>-><upstream shape>` to a per-request plan. Same shape on both
 * sides is passthrough and has no entry here.
 */
import { randomUUID } from 'node:crypto';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { ApiShape, HostedEndpoint, Operation } from '../providers/registry.ts';
import type { AnthropicMessagesRequest, AnthropicMessagesResponse } from '../shapes/anthropic.ts';
import type { BedrockConverseResponse } from '../shapes/bedrock.ts';
import type { GeminiGenerateContentResponse } from '../shapes/gemini.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../shapes/openai.ts';
import type { StreamFraming } from '../sse/stream-framing.ts';
import {
  convertAnthropicRequestToConverse,
  convertConverseResponseToAnthropic,
  createConverseStreamToAnthropicTranslator,
} from '../translate/anthropic-to-bedrock/index.ts';
import {
  convertAnthropicRequestToGemini,
  convertGeminiResponseToAnthropic,
  createGeminiStreamToAnthropicTranslator,
} from '../translate/anthropic-to-gemini/index.ts';
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
  converseModelPath,
  convertBedrockError,
  convertChatRequestToConverse,
  convertConverseResponseToChat,
  createConverseStreamTranslator,
} from '../translate/openai-to-bedrock/index.ts';
import {
  convertChatRequestToGemini,
  convertGeminiResponseToChat,
  createGeminiStreamTranslator,
  generateContentPath,
} from '../translate/openai-to-gemini/index.ts';
import type { StreamTranslator } from '../translate/types.ts';
import { planGeminiEmbeddingsTranslation } from './embeddings-translation.ts';
import type { SendUpstreamCall } from './upstream-calls.ts';
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
  /**
   * Present when one request takes several upstream calls (Gemini embeddings, in batches): the
   * gateway hands it a sender (the route's base URL, headers and auth) and answers the client with
   * what it returns; it maps failed answers itself. `path` is then the first call's, `body` what
   * all calls carry (for size estimates), and `response`/`stream` are not used.
   */
  execute?(send: SendUpstreamCall): Promise<unknown>;
  // --- Upstreams with their own stream framing and error table (Bedrock) ---
  /** How the upstream frames its stream (the reader that feeds `stream()`); SSE when absent. */
  framing?: StreamFraming;
  /** The upstream's error answer -> the gateway error; absent: the generic status table. */
  error?(answer: UpstreamErrorAnswer): GatewayError;
  // --- end ---
}

/** An upstream answer with an error status, read whole. */
export interface UpstreamErrorAnswer {
  /** The provider name as the client knows it (for the message). */
  provider: string;
  status: number;
  body: string;
  headers: Readonly<Record<string, string | undefined>>;
}

export interface PlanInput {
  body: JsonObject;
  upstreamModel: string;
  stream: boolean;
  /**
   * The provider's name as routed (`openai`, `groq`, `openai-compatible`, ...): requests to
   * OpenAI's own API differ from those to compatible servers (see MAX_COMPLETION_TOKENS_PROVIDERS).
   */
  provider?: string;
  /** Set for providers hosting the upstream shape at their own URLs (Vertex); else the shape's own paths. */
  endpoint?: HostedEndpoint;
}

// --- Hosting providers (Vertex): their paths and body adjustments over the shape's own ---
const hostedPath = (input: PlanInput, method: string, ownPath: string): string =>
  input.endpoint?.path(method, input.stream) ?? ownPath;
const hostedBody = (input: PlanInput, body: object): unknown =>
  input.endpoint?.body(body as Record<string, unknown>) ?? body;
const generateContentMethod = (stream: boolean): string =>
  stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
/** Vertex fetches gs:// and https media itself; the Gemini API takes only its own URIs. */
const geminiOptions = (input: PlanInput): { remoteFileUris: boolean } => ({
  remoteFileUris: input.endpoint?.fetchesFileUris === true,
});

/** Same shape on a hosting provider: the body as the host takes it at its path; answers pass through. */
function planHostedPassthrough(input: PlanInput, endpoint: HostedEndpoint): TranslationPlan {
  return {
    path: endpoint.path('messages', input.stream),
    body: endpoint.body({ ...input.body, model: input.upstreamModel }),
    response: (upstream) => upstream,
    stream: () => ({ push: (event) => [event], end: () => [] }),
  };
}
// --- end hosting providers ---

type Planner = (input: PlanInput) => TranslationPlan;

/** Bedrock's error answer (status, `{message}`, `x-amzn-ErrorType`) -> the gateway error; the client's envelope renders it. */
const mapBedrockErrorAnswer = ({ provider, status, body, headers }: UpstreamErrorAnswer): GatewayError =>
  convertBedrockError({
    provider,
    status,
    body,
    errorType: headers['x-amzn-errortype'],
    retryAfter: headers['retry-after'],
  });

/**
 * Providers whose chat API takes the token cap as `max_completion_tokens`: OpenAI deprecated
 * `max_tokens` and its reasoning models (o-series, gpt-5) refuse it, while compatible servers may
 * know only `max_tokens` (reference/providers.md sections 1 and 8).
 */
const MAX_COMPLETION_TOKENS_PROVIDERS: ReadonlySet<string> = new Set(['openai']);

// Translators always emit usage (the client's own choice is applied by the stream observer, which
// drops the usage chunk when the client did not ask): streams must be billed.
const PLANNERS: ReadonlyMap<string, Planner> = new Map<string, Planner>([
  [
    'chat->anthropic',
    (input) => {
      const { body, upstreamModel } = input;
      const plan = convertChatRequestToAnthropic(body as unknown as ChatCompletionRequest, {
        model: upstreamModel,
      });
      const context = { ...plan.context, includeUsage: true, model: upstreamModel };
      return {
        path: hostedPath(input, 'messages', '/v1/messages'),
        body: hostedBody(input, plan.body),
        response: (upstream) =>
          convertAnthropicResponseToChat(upstream as AnthropicMessagesResponse, context),
        stream: () => createAnthropicStreamToChatTranslator(context),
      };
    },
  ],
  [
    'messages->openai',
    ({ body, upstreamModel, provider }) => {
      const chat = convertAnthropicRequestToChat(body as unknown as AnthropicMessagesRequest, {
        model: upstreamModel,
        maxTokensField: MAX_COMPLETION_TOKENS_PROVIDERS.has(provider ?? '')
          ? 'max_completion_tokens'
          : 'max_tokens',
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
    (input) => ({
      path: hostedPath(
        input,
        generateContentMethod(input.stream),
        generateContentPath(input.upstreamModel, input.stream),
      ),
      body: convertChatRequestToGemini(input.body as unknown as ChatCompletionRequest, geminiOptions(input)),
      response: (upstream) =>
        convertGeminiResponseToChat(upstream as GeminiGenerateContentResponse, {
          model: input.upstreamModel,
        }),
      stream: () => createGeminiStreamTranslator({ model: input.upstreamModel, includeUsage: true }),
    }),
  ],
  // --- /v1/messages and /v1/embeddings on Gemini (and Gemini on Vertex) ---
  [
    'messages->gemini',
    (input) => {
      const context = { model: input.upstreamModel };
      return {
        path: hostedPath(
          input,
          generateContentMethod(input.stream),
          generateContentPath(input.upstreamModel, input.stream),
        ),
        body: convertAnthropicRequestToGemini(
          input.body as unknown as AnthropicMessagesRequest,
          context,
          geminiOptions(input),
        ),
        response: (upstream) =>
          convertGeminiResponseToAnthropic(upstream as GeminiGenerateContentResponse, context),
        stream: () => createGeminiStreamToAnthropicTranslator(context),
      };
    },
  ],
  ['embeddings->gemini', planGeminiEmbeddingsTranslation],
  // --- end /v1/messages and /v1/embeddings on Gemini ---
  // --- chat completions on Bedrock Converse ---
  [
    'chat->bedrock',
    ({ body, upstreamModel, stream }) => {
      const plan = convertChatRequestToConverse(body as unknown as ChatCompletionRequest);
      // Converse answers carry no id or model.
      const context = {
        ...plan.context,
        includeUsage: true,
        model: upstreamModel,
        id: `chatcmpl-${randomUUID()}`,
      };
      return {
        path: converseModelPath(upstreamModel, stream),
        body: plan.body,
        framing: 'aws-eventstream',
        response: (upstream) => convertConverseResponseToChat(upstream as BedrockConverseResponse, context),
        stream: () => createConverseStreamTranslator(context),
        error: mapBedrockErrorAnswer,
      };
    },
  ],
  // --- end chat completions on Bedrock Converse ---
  // --- /v1/messages on Bedrock Converse (the two pairs chained, like messages->gemini) ---
  [
    'messages->bedrock',
    ({ body, upstreamModel, stream }) => {
      // Converse answers carry no id: one per request, in each shape's own form.
      const uuid = randomUUID().replaceAll('-', '');
      const plan = convertAnthropicRequestToConverse(body as unknown as AnthropicMessagesRequest, {
        model: upstreamModel,
        messageId: `msg_${uuid}`,
        chatId: `chatcmpl-${uuid}`,
      });
      return {
        path: converseModelPath(upstreamModel, stream),
        body: plan.body,
        framing: 'aws-eventstream',
        response: (upstream) =>
          convertConverseResponseToAnthropic(upstream as BedrockConverseResponse, plan.context),
        stream: () => createConverseStreamToAnthropicTranslator(plan.context),
        error: mapBedrockErrorAnswer,
      };
    },
  ],
  // --- end /v1/messages on Bedrock Converse ---
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
  if (CLIENT_SHAPE[operation] === upstream)
    return input.endpoint === undefined ? undefined : planHostedPassthrough(input, input.endpoint);
  const planner = PLANNERS.get(`${operation}->${upstream}`);
  if (planner === undefined) throw new Error(`no translation from ${operation} to ${upstream}`);
  return planner(input);
}
