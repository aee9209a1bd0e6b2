import { describe, expect, it } from 'vitest';
import { InvalidRequestError, UpstreamError } from '../../errors/gateway-error.ts';
import type { GeminiBatchEmbedContentsResponse, GeminiEmbedContentResponse } from '../../shapes/gemini.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import {
  convertGeminiEmbeddings,
  encodeFloat32Base64,
  type GeminiEmbeddingPlan,
  planGeminiEmbeddings,
} from './embeddings.ts';

const fixture = translatorFixtures('openai-to-gemini').json;

const single = fixture<GeminiEmbedContentResponse>('embed-content.response.json');
const batch = fixture<GeminiBatchEmbedContentsResponse>('batch-embed-contents.response.json');

/** Fake batch answers whose first value is the input position, to check ordering across calls. */
const answersFor = (plan: GeminiEmbeddingPlan): GeminiBatchEmbedContentsResponse[] =>
  plan.calls.map((call) => ({
    embeddings: Array.from({ length: call.count }, (_, offset) => ({
      values: [call.firstIndex + offset, 0],
    })),
  }));

describe('planGeminiEmbeddings', () => {
  it('plans one embedContent call for a single input', () => {
    const plan = planGeminiEmbeddings({
      model: 'gemini-embedding-001',
      input: 'hello world',
      dimensions: 768,
    });
    expect(plan.calls).toEqual([
      {
        method: 'embedContent',
        path: '/v1beta/models/gemini-embedding-001:embedContent',
        body: {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: 'hello world' }] },
          outputDimensionality: 768,
        },
        firstIndex: 0,
        count: 1,
      },
    ]);
  });

  it('plans batchEmbedContents calls of at most 100 inputs', () => {
    const input = Array.from({ length: 250 }, (_, index) => `text ${index}`);
    const plan = planGeminiEmbeddings(
      { model: 'gemini/text-embedding-004', input },
      { model: 'text-embedding-004', taskType: 'RETRIEVAL_DOCUMENT' },
    );
    expect(plan.calls.map((call) => [call.method, call.firstIndex, call.count])).toEqual([
      ['batchEmbedContents', 0, 100],
      ['batchEmbedContents', 100, 100],
      ['batchEmbedContents', 200, 50],
    ]);
    expect(plan.calls[0]?.path).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
    const body = plan.calls[2]?.body as { requests: unknown[] };
    expect(body.requests[49]).toEqual({
      model: 'models/text-embedding-004',
      content: { parts: [{ text: 'text 249' }] },
      taskType: 'RETRIEVAL_DOCUMENT',
    });
    expect(plan.responseModel).toBe('gemini/text-embedding-004');
  });

  it('refuses token arrays, empty input and bad dimensions', () => {
    expect(() => planGeminiEmbeddings({ model: 'm', input: [1, 2, 3] })).toThrow(/token-array/);
    expect(() => planGeminiEmbeddings({ model: 'm', input: [[1, 2]] })).toThrow(InvalidRequestError);
    expect(() => planGeminiEmbeddings({ model: 'm', input: [] })).toThrow(InvalidRequestError);
    expect(() => planGeminiEmbeddings({ model: 'm', input: ['a', ''] })).toThrow(/input\[1\]/);
    expect(() => planGeminiEmbeddings({ model: 'm', input: 'a', dimensions: 0 })).toThrow(/dimensions/);
  });
});

describe('convertGeminiEmbeddings', () => {
  it('converts an embedContent answer, estimating usage at four characters per token', () => {
    const plan = planGeminiEmbeddings({ model: 'text-embedding-004', input: 'hello world' });
    expect(convertGeminiEmbeddings(plan, [single])).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: single.embedding.values }],
      model: 'text-embedding-004',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
  });

  it('keeps input order in the indexes of a batch answer', () => {
    const plan = planGeminiEmbeddings({ model: 'text-embedding-004', input: ['a', 'bb', 'ccc'] });
    const result = convertGeminiEmbeddings(plan, [batch]);
    expect(result.data.map((item) => item.index)).toEqual([0, 1, 2]);
    expect(result.data.map((item) => item.embedding)).toEqual(
      batch.embeddings.map((embedding) => embedding.values),
    );
  });

  it('numbers inputs across several calls by their position in the request', () => {
    const input = Array.from({ length: 230 }, (_, index) => `t${index}`);
    const plan = planGeminiEmbeddings({ model: 'text-embedding-004', input });
    const result = convertGeminiEmbeddings(plan, answersFor(plan));
    expect(result.data.map((item) => item.index)).toEqual(input.map((_, index) => index));
    expect(result.data.map((item) => (item.embedding as number[])[0])).toEqual(
      input.map((_, index) => index),
    );
  });

  it('re-normalises reduced gemini-embedding-001 vectors, and only those', () => {
    const reduced = planGeminiEmbeddings({ model: 'gemini-embedding-001', input: 'x', dimensions: 8 });
    const [item] = convertGeminiEmbeddings(reduced, [single]).data;
    const vector = item?.embedding as number[];
    expect(Math.hypot(...vector)).toBeCloseTo(1, 12);
    const norm = Math.hypot(...single.embedding.values);
    expect(vector[0]).toBeCloseTo((single.embedding.values[0] as number) / norm, 12);

    const full = planGeminiEmbeddings({ model: 'gemini-embedding-001', input: 'x', dimensions: 3072 });
    expect(convertGeminiEmbeddings(full, [single]).data[0]?.embedding).toEqual(single.embedding.values);
    const other = planGeminiEmbeddings({ model: 'text-embedding-004', input: 'x', dimensions: 8 });
    expect(convertGeminiEmbeddings(other, [single]).data[0]?.embedding).toEqual(single.embedding.values);
  });

  it('encodes base64 as little-endian float32 bytes', () => {
    const plan = planGeminiEmbeddings({ model: 'text-embedding-004', input: 'x', encoding_format: 'base64' });
    const [item] = convertGeminiEmbeddings(plan, [single]).data;
    const bytes = Buffer.from(item?.embedding as string, 'base64');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const decoded = Array.from({ length: bytes.length / 4 }, (_, index) => view.getFloat32(index * 4, true));
    expect(decoded).toEqual(single.embedding.values.map((value) => Math.fround(value)));
    expect(encodeFloat32Base64([1])).toBe('AACAPw==');
  });

  it('uses reported usage when every answer carries it', () => {
    const plan = planGeminiEmbeddings({ model: 'text-embedding-004', input: 'hello world' });
    const result = convertGeminiEmbeddings(plan, [{ ...single, usageMetadata: { promptTokenCount: 2 } }]);
    expect(result.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
  });

  it('refuses answers that do not match the plan', () => {
    const plan = planGeminiEmbeddings({ model: 'text-embedding-004', input: ['a', 'b'] });
    expect(() => convertGeminiEmbeddings(plan, [])).toThrow(UpstreamError);
    expect(() => convertGeminiEmbeddings(plan, [{ embeddings: [{ values: [1] }] }])).toThrow(
      /1 embeddings for 2 inputs/,
    );
  });
});
