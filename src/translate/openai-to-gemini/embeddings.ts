/**
 * OpenAI `/v1/embeddings` ⇄ Gemini `embedContent` / `batchEmbedContents`. Pure: a request becomes a
 * plan of upstream calls; the answers to those calls (in plan order) become one OpenAI list.
 *
 * providers.md §3 "Embeddings" and §6: one input → `:embedContent`; several → `:batchEmbedContents`
 * with at most 100 requests per call; `dimensions` → `outputDimensionality`; reduced
 * gemini-embedding-001 vectors re-normalised (Google's advice: only the full 3072-d vector is
 * normalised); `data[i].index` = input position across calls; `base64` = little-endian float32
 * bytes; Gemini reports no usage, so it is estimated at four characters per token.
 */
import { InvalidRequestError, UpstreamError } from '../../errors/gateway-error.ts';
import type {
  GeminiBatchEmbedContentsRequest,
  GeminiBatchEmbedContentsResponse,
  GeminiEmbedContentRequest,
  GeminiEmbedContentResponse,
  GeminiEmbeddingTaskType,
} from '../../shapes/gemini.ts';
import { geminiModelPath } from './request.ts';

// The OpenAI embeddings shapes (a local subset until shapes/openai.ts lands).

export interface OpenAiEmbeddingsRequest {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: 'float' | 'base64' | null;
  dimensions?: number | null;
  user?: string;
}

export interface OpenAiEmbedding {
  object: 'embedding';
  index: number;
  /** A float array, or (encoding_format "base64") the float32 little-endian bytes in base64. */
  embedding: number[] | string;
}

export interface OpenAiEmbeddingsResponse {
  object: 'list';
  data: OpenAiEmbedding[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** Gemini's documented cap on requests in one batchEmbedContents call (vercel/ai uses the same). */
export const MAX_EMBEDDINGS_PER_CALL = 100;

/** The only dimension at which gemini-embedding-001 returns a normalised vector. */
const GEMINI_EMBEDDING_001_FULL_DIMENSIONS = 3072;

export type GeminiEmbeddingCall =
  | { method: 'embedContent'; path: string; body: GeminiEmbedContentRequest; firstIndex: number; count: 1 }
  | {
      method: 'batchEmbedContents';
      path: string;
      body: GeminiBatchEmbedContentsRequest;
      firstIndex: number;
      count: number;
    };

export interface GeminiEmbeddingPlan {
  /** The model as the client named it, reported back in the answer. */
  responseModel: string;
  calls: GeminiEmbeddingCall[];
  encodingFormat: 'float' | 'base64';
  /** Re-normalise returned vectors to unit length. */
  normalize: boolean;
  /** Characters of each input, for the usage estimate. */
  inputChars: number[];
}

export interface GeminiEmbeddingOptions {
  /** The upstream model id (routing prefix stripped); defaults to `request.model`. */
  model?: string;
  taskType?: GeminiEmbeddingTaskType;
  /** Inputs per batchEmbedContents call; at most (and by default) 100. */
  batchSize?: number;
}

/** Plans the upstream calls for an OpenAI embeddings request. Throws InvalidRequestError. */
export function planGeminiEmbeddings(
  request: OpenAiEmbeddingsRequest,
  options: GeminiEmbeddingOptions = {},
): GeminiEmbeddingPlan {
  const inputs = readInputs(request.input);
  const model = (options.model ?? request.model).replace(/^models\//, '');
  const dimensions = request.dimensions ?? undefined;
  if (dimensions !== undefined && !(Number.isInteger(dimensions) && dimensions > 0)) {
    throw new InvalidRequestError('dimensions must be a positive integer');
  }
  const encodingFormat = request.encoding_format ?? 'float';
  if (encodingFormat !== 'float' && encodingFormat !== 'base64') {
    throw new InvalidRequestError(`encoding_format '${encodingFormat}' is not supported`);
  }

  const single = (text: string): GeminiEmbedContentRequest => ({
    model: `models/${model}`,
    content: { parts: [{ text }] },
    ...(options.taskType === undefined ? {} : { taskType: options.taskType }),
    ...(dimensions === undefined ? {} : { outputDimensionality: dimensions }),
  });

  const calls: GeminiEmbeddingCall[] = [];
  if (inputs.length === 1) {
    calls.push({
      method: 'embedContent',
      path: geminiModelPath(model, 'embedContent'),
      body: single(inputs[0] as string),
      firstIndex: 0,
      count: 1,
    });
  } else {
    const batchSize = Math.min(
      Math.max(1, options.batchSize ?? MAX_EMBEDDINGS_PER_CALL),
      MAX_EMBEDDINGS_PER_CALL,
    );
    for (let first = 0; first < inputs.length; first += batchSize) {
      const slice = inputs.slice(first, first + batchSize);
      calls.push({
        method: 'batchEmbedContents',
        path: geminiModelPath(model, 'batchEmbedContents'),
        body: { requests: slice.map(single) },
        firstIndex: first,
        count: slice.length,
      });
    }
  }

  return {
    responseModel: request.model,
    calls,
    encodingFormat,
    normalize:
      /(^|\/)gemini-embedding-001$/.test(model) &&
      dimensions !== undefined &&
      dimensions !== GEMINI_EMBEDDING_001_FULL_DIMENSIONS,
    inputChars: inputs.map((text) => text.length),
  };
}

function readInputs(input: unknown): string[] {
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || inputs.length === 0) {
    throw new InvalidRequestError('input must be a non-empty string or array of strings');
  }
  return inputs.map((item: unknown, index) => {
    if (typeof item === 'number' || Array.isArray(item)) {
      throw new InvalidRequestError('token-array input is not supported for Gemini embedding models');
    }
    if (typeof item !== 'string' || item === '') {
      throw new InvalidRequestError(`input[${index}] must be a non-empty string`);
    }
    return item;
  });
}

/**
 * Assembles the answers to `plan.calls` (same order) into one OpenAI embeddings list. Throws an
 * UpstreamError (502) when Gemini returned a different number of vectors than inputs.
 */
export function convertGeminiEmbeddings(
  plan: GeminiEmbeddingPlan,
  responses: readonly (GeminiEmbedContentResponse | GeminiBatchEmbedContentsResponse)[],
): OpenAiEmbeddingsResponse {
  if (responses.length !== plan.calls.length) {
    throw new UpstreamError(
      502,
      200,
      `expected ${plan.calls.length} Gemini answers, got ${responses.length}`,
      'api_error',
      true,
    );
  }
  const data: OpenAiEmbedding[] = [];
  let reportedTokens = 0;
  let allReported = true;
  for (const [position, call] of plan.calls.entries()) {
    const response = responses[position] as Partial<
      GeminiEmbedContentResponse & GeminiBatchEmbedContentsResponse
    >;
    const vectors = call.method === 'embedContent' ? [response.embedding] : (response.embeddings ?? []);
    if (vectors.length !== call.count || vectors.some((vector) => !Array.isArray(vector?.values))) {
      throw new UpstreamError(
        502,
        200,
        `Gemini returned ${vectors.length} embeddings for ${call.count} inputs`,
        'api_error',
        true,
      );
    }
    for (const [offset, vector] of vectors.entries()) {
      const values = plan.normalize ? normalizeVector(vector!.values) : vector!.values;
      data.push({
        object: 'embedding',
        index: call.firstIndex + offset,
        embedding: plan.encodingFormat === 'base64' ? encodeFloat32Base64(values) : values,
      });
    }
    const tokens = response.usageMetadata?.promptTokenCount;
    if (typeof tokens === 'number') reportedTokens += tokens;
    else allReported = false;
  }
  const promptTokens = allReported
    ? reportedTokens
    : plan.inputChars.reduce((sum, chars) => sum + Math.ceil(chars / 4), 0);
  return {
    object: 'list',
    data,
    model: plan.responseModel,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

/** Scales a vector to unit length (a zero vector is returned as it is). */
export function normalizeVector(values: readonly number[]): number[] {
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
  return norm === 0 ? [...values] : values.map((value) => value / norm);
}

/** OpenAI's base64 encoding: the float32 vector's little-endian bytes, whatever the host's byte order. */
export function encodeFloat32Base64(values: readonly number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  for (const [index, value] of values.entries()) view.setFloat32(index * 4, value, true);
  return Buffer.from(view.buffer).toString('base64');
}
