import { describe, expect, it } from 'vitest';
import type { UpstreamCall, UpstreamCallAnswer } from '../types.ts';
import {
  EMBEDDING_CALLS_IN_FLIGHT,
  mapInOrder,
  planGeminiEmbeddingsTranslation,
} from './gemini-embeddings.ts';

const plan = (input: string | string[]) =>
  planGeminiEmbeddingsTranslation({
    body: { model: 'gemini/gemini-embedding-001', input },
    upstreamModel: 'gemini-embedding-001',
    stream: false,
  });

const json = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): UpstreamCallAnswer => ({
  statusCode,
  headers,
  text: JSON.stringify(body),
});

/** Answers batches with vectors [position in the batch, batch size], after a delay that inverts their order. */
function batchSender(calls: UpstreamCall[]) {
  return async (call: UpstreamCall): Promise<UpstreamCallAnswer> => {
    calls.push(call);
    const requests = (call.body as { requests: unknown[] }).requests;
    await new Promise((resolve) => setTimeout(resolve, 30 - calls.length * 5));
    return json(200, { embeddings: requests.map((_, index) => ({ values: [index, requests.length] })) });
  };
}

describe('planGeminiEmbeddingsTranslation', () => {
  it('sends one embedContent call for one input and answers in the OpenAI shape', async () => {
    const calls: UpstreamCall[] = [];
    const translation = plan('hello');
    expect(translation.path).toBe('/v1beta/models/gemini-embedding-001:embedContent');
    const answer = await translation.execute!(async (call) => {
      calls.push(call);
      return json(200, { embedding: { values: [0.1, 0.2] } });
    });
    expect(calls).toHaveLength(1);
    expect(answer).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
      model: 'gemini/gemini-embedding-001',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
  });

  it('splits 250 inputs into batches of 100 and keeps input order whatever order they answer in', async () => {
    const calls: UpstreamCall[] = [];
    const translation = plan(Array.from({ length: 250 }, (_, index) => `text ${index}`));
    const answer = (await translation.execute!(batchSender(calls))) as {
      data: { index: number; embedding: number[] }[];
    };
    expect(calls.map((call) => (call.body as { requests: unknown[] }).requests.length)).toEqual([
      100, 100, 50,
    ]);
    expect(answer.data.map((item) => item.index)).toEqual(Array.from({ length: 250 }, (_, index) => index));
    expect(answer.data[0]!.embedding).toEqual([0, 100]);
    expect(answer.data[249]!.embedding).toEqual([49, 50]);
    // The size estimate covers every call's body.
    expect(translation.body).toHaveLength(3);
  });

  it('maps a failed call with classifyGeminiError (429 with RetryInfo -> 429 + Retry-After)', async () => {
    const translation = plan(['a', 'b']);
    const error = await translation.execute!(async () =>
      json(429, {
        error: {
          code: 429,
          message: 'Quota exceeded',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '9s' }],
        },
      }),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      statusCode: 429,
      type: 'rate_limit_error',
      headers: { 'retry-after': '9' },
    });
  });

  it('answers 502 for a malformed upstream answer', async () => {
    await expect(
      plan('x').execute!(async () => ({ statusCode: 200, headers: {}, text: 'not json' })),
    ).rejects.toMatchObject({ statusCode: 502 });
  });
});

describe('mapInOrder', () => {
  it(`keeps at most the limit pending (${EMBEDDING_CALLS_IN_FLIGHT} for embeddings) and results in order`, async () => {
    let pending = 0;
    let most = 0;
    const results = await mapInOrder([5, 1, 4, 2, 3, 0], 2, async (delay, index) => {
      pending += 1;
      most = Math.max(most, pending);
      await new Promise((resolve) => setTimeout(resolve, delay));
      pending -= 1;
      return index * 10;
    });
    expect(results).toEqual([0, 10, 20, 30, 40, 50]);
    expect(most).toBe(2);
  });

  it('starts nothing after the first failure', async () => {
    const started: number[] = [];
    await expect(
      mapInOrder([0, 1, 2, 3], 1, async (item) => {
        started.push(item);
        if (item === 1) throw new Error('boom');
        return item;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([0, 1]);
  });
});
