/**
 * The translations of translate/plans: one planner per `<operation>-><upstream shape>` pair (data,
 * STYLE rule 10) that turns a request into the upstream's body and path and says how the answer and
 * the stream come back. The registry (registry.ts) wraps them into upstream plans; same shape on
 * both sides is passthrough (passthrough.ts) and has no entry here.
 */
import { randomUUID } from 'node:crypto';
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { AnthropicMessagesRequest, AnthropicMessagesResponse } from '../../shapes/anthropic.ts';
import type { BedrockConverseResponse } from '../../shapes/bedrock.ts';
import type { GeminiGenerateContentResponse } from '../../shapes/gemini.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../shapes/openai.ts';
import {
  convertAnthropicRequestToConverse,
  convertConverseResponseToAnthropic,
  createConverseStreamToAnthropicTranslator,
} from '../anthropic-to-bedrock/index.ts';
import {
  convertAnthropicRequestToGemini,
  convertGeminiResponseToAnthropic,
  createGeminiStreamToAnthropicTranslator,
} from '../anthropic-to-gemini/index.ts';
import {
  convertAnthropicRequestToChat,
  convertChatResponseToAnthropic,
  createChatStreamToAnthropicTranslator,
} from '../anthropic-to-openai/index.ts';
import {
  convertAnthropicResponseToChat,
  convertChatRequestToAnthropic,
  createAnthropicStreamToChatTranslator,
} from '../openai-to-anthropic/index.ts';
import {
  converseModelPath,
  convertBedrockError,
  convertChatRequestToConverse,
  convertConverseResponseToChat,
  createConverseStreamTranslator,
} from '../openai-to-bedrock/index.ts';
import {
  convertChatRequestToGemini,
  convertGeminiError,
  convertGeminiResponseToChat,
  createGeminiStreamTranslator,
  generateContentPath,
} from '../openai-to-gemini/index.ts';
import type { UpstreamErrorAnswer } from '../types.ts';
import { planGeminiEmbeddingsTranslation } from './gemini-embeddings.ts';
import type { Translation, TranslationInput } from './translation.ts';

// Hosting providers (Vertex): their paths and body adjustments over the shape's own.
const hostedPath = (input: TranslationInput, method: string, ownPath: string): string =>
  input.endpoint?.path(method, input.stream) ?? ownPath;
const hostedBody = (input: TranslationInput, body: object): unknown =>
  input.endpoint?.body(body as Record<string, unknown>) ?? body;
const generateContentMethod = (stream: boolean): string =>
  stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
/** Vertex fetches gs:// and https media itself; the Gemini API takes only its own URIs. */
const geminiOptions = (input: TranslationInput): { remoteFileUris: boolean } => ({
  remoteFileUris: input.endpoint?.fetchesFileUris === true,
});

type Planner = (input: TranslationInput) => Translation;

/** Google's error answer (status, `{error: {status, details}}`, Retry-After) -> the gateway error. */
const mapGeminiErrorAnswer = ({ status, body, headers }: UpstreamErrorAnswer): GatewayError =>
  convertGeminiError(status, body, { 'retry-after': headers['retry-after'] });

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
export const MAX_COMPLETION_TOKENS_PROVIDERS: ReadonlySet<string> = new Set(['openai']);

// Translators always emit usage (the client's own choice is applied by the plan's stream pipeline,
// which drops the usage chunk when the client did not ask): streams must be billed.
export const TRANSLATIONS: ReadonlyMap<string, Planner> = new Map<string, Planner>([
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
      error: mapGeminiErrorAnswer,
    }),
  ],
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
        error: mapGeminiErrorAnswer,
      };
    },
  ],
  ['embeddings->gemini', planGeminiEmbeddingsTranslation],
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
]);
