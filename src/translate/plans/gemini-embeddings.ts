/**
 * `/v1/embeddings` on Gemini (`embeddings->gemini`): one client request, one or more upstream calls
 * (`embedContent` for one input, `batchEmbedContents` with at most 100 per call), sent a few at a
 * time through the gateway's sender and merged in input order by convertGeminiEmbeddings, which
 * also estimates usage (Gemini reports none). Failed answers are classified by classifyGeminiError.
 */
import { InvalidRequestError, UpstreamError } from '../../errors/gateway-error.ts';
import {
  classifyGeminiError,
  convertGeminiClassification,
  convertGeminiEmbeddings,
  type OpenAiEmbeddingsRequest,
  planGeminiEmbeddings,
} from '../openai-to-gemini/index.ts';
import type { Translation, TranslationInput } from './translation.ts';

/** Calls of one request in flight at once: enough to overlap latency, few enough for per-minute quotas. */
export const EMBEDDING_CALLS_IN_FLIGHT = 4;

export function planGeminiEmbeddingsTranslation({ body, upstreamModel }: TranslationInput): Translation {
  const plan = planGeminiEmbeddings(body as unknown as OpenAiEmbeddingsRequest, { model: upstreamModel });
  const first = plan.calls[0]!;
  return {
    path: first.path,
    body: plan.calls.length === 1 ? first.body : plan.calls.map((call) => call.body),
    response: (upstream) => convertGeminiEmbeddings(plan, [upstream as never]),
    stream: () => {
      throw new InvalidRequestError('embeddings cannot be streamed');
    },
    async execute(send) {
      const answers = await mapInOrder(plan.calls, EMBEDDING_CALLS_IN_FLIGHT, async (call) => {
        const answer = await send({ path: call.path, body: call.body });
        if (answer.statusCode >= 400) {
          throw convertGeminiClassification(
            classifyGeminiError(answer.statusCode, answer.text, {
              'retry-after': answer.headers['retry-after'],
            }),
          );
        }
        try {
          return JSON.parse(answer.text) as never;
        } catch {
          throw new UpstreamError(
            502,
            answer.statusCode,
            'Gemini answered with malformed JSON',
            'api_error',
            true,
          );
        }
      });
      return convertGeminiEmbeddings(plan, answers);
    },
  };
}

/**
 * `map` over `items` with at most `limit` calls of `run` pending, results in input order. The first
 * failure rejects; calls already started finish, none is started after it.
 */
export async function mapInOrder<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await run(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
