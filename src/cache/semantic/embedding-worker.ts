/**
 * The worker thread of the local embedder (local-embedder.ts): it loads all-MiniLM-L6-v2 (an ONNX
 * file run by onnxruntime-node, whose `run` holds the thread it is called on, hence a worker) and
 * its WordPiece tokenizer (@huggingface/tokenizers), then answers `{id, text}` messages with
 * `{id, vector}` (mean pooling over the attention mask, then L2 normalisation). Requests that
 * arrive while the model runs are embedded together, as one batch.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';

export interface EmbeddingWorkerData {
  /** The folder of the tokenizer's files. */
  modelDir: string;
  /** The ONNX file to run (model.onnx, or its quantised derivative). */
  modelFile: string;
  threads: number;
  /** Tokens per input at most, [CLS] and [SEP] included (the model's 256). */
  maxTokens: number;
  maxBatch: number;
}

export type EmbeddingWorkerRequest = { id: number; text: string };
export type EmbeddingWorkerReply =
  | { type: 'ready'; dimensions: number }
  | { type: 'vector'; id: number; vector: Float32Array }
  | { type: 'failed'; id: number; message: string }
  | { type: 'fatal'; message: string };

const port = parentPort;
if (port === null) throw new Error('embedding-worker.ts runs as a worker thread');
const settings = workerData as EmbeddingWorkerData;

async function load() {
  const tokenizer = new Tokenizer(
    JSON.parse(readFileSync(join(settings.modelDir, 'tokenizer.json'), 'utf8')),
    JSON.parse(readFileSync(join(settings.modelDir, 'tokenizer_config.json'), 'utf8')),
  );
  const session = await ort.InferenceSession.create(readFileSync(settings.modelFile), {
    intraOpNumThreads: settings.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  return { tokenizer, session };
}

/** Token ids of one text: [CLS] … [SEP], cut to maxTokens (keeping the closing [SEP]). */
function tokenise(tokenizer: Tokenizer, text: string): number[] {
  const ids = tokenizer.encode(text).ids;
  if (ids.length <= settings.maxTokens) return ids;
  return [...ids.slice(0, settings.maxTokens - 1), ids[ids.length - 1] as number];
}

async function embedBatch(model: Awaited<ReturnType<typeof load>>, texts: string[]): Promise<Float32Array[]> {
  const encoded = texts.map((text) => tokenise(model.tokenizer, text));
  const length = Math.max(...encoded.map((ids) => ids.length));
  const ids = new BigInt64Array(texts.length * length);
  const mask = new BigInt64Array(texts.length * length);
  encoded.forEach((tokens, row) => {
    tokens.forEach((token, column) => {
      ids[row * length + column] = BigInt(token);
      mask[row * length + column] = 1n;
    });
  });
  const shape = [texts.length, length];
  const output = await model.session.run({
    input_ids: new ort.Tensor('int64', ids, shape),
    attention_mask: new ort.Tensor('int64', mask, shape),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(texts.length * length), shape),
  });
  const hidden = output.last_hidden_state as ort.Tensor;
  const dimensions = hidden.dims[2] as number;
  const data = hidden.data as Float32Array;
  return encoded.map((tokens, row) => {
    // Mean pooling over the real tokens (the attention mask), then unit length.
    const vector = new Float32Array(dimensions);
    for (let column = 0; column < tokens.length; column += 1) {
      const offset = (row * length + column) * dimensions;
      for (let k = 0; k < dimensions; k += 1)
        vector[k] = (vector[k] as number) + (data[offset + k] as number);
    }
    let sum = 0;
    for (let k = 0; k < dimensions; k += 1) {
      vector[k] = (vector[k] as number) / tokens.length;
      sum += (vector[k] as number) ** 2;
    }
    const norm = Math.sqrt(sum) || 1;
    for (let k = 0; k < dimensions; k += 1) vector[k] = (vector[k] as number) / norm;
    return vector;
  });
}

const queue: EmbeddingWorkerRequest[] = [];
let running = false;

async function drain(model: Awaited<ReturnType<typeof load>>): Promise<void> {
  if (running) return;
  running = true;
  try {
    while (queue.length > 0) {
      const batch = queue.splice(0, settings.maxBatch);
      try {
        const vectors = await embedBatch(
          model,
          batch.map((request) => request.text),
        );
        batch.forEach((request, index) => {
          const vector = vectors[index] as Float32Array;
          port?.postMessage({ type: 'vector', id: request.id, vector } satisfies EmbeddingWorkerReply, [
            vector.buffer as ArrayBuffer,
          ]);
        });
      } catch (error) {
        for (const request of batch) {
          port?.postMessage({
            type: 'failed',
            id: request.id,
            message: String(error),
          } satisfies EmbeddingWorkerReply);
        }
      }
      // Let the requests that arrived meanwhile in before the next batch.
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    running = false;
  }
}

try {
  const model = await load();
  const [probe] = await embedBatch(model, ['ready']);
  port.on('message', (request: EmbeddingWorkerRequest) => {
    queue.push(request);
    void drain(model);
  });
  port.postMessage({ type: 'ready', dimensions: probe?.length ?? 0 } satisfies EmbeddingWorkerReply);
} catch (error) {
  port.postMessage({ type: 'fatal', message: String(error) } satisfies EmbeddingWorkerReply);
}
