/**
 * The worker thread of the pair verifier (pair-verifier.ts): it loads the verifier's ONNX file and
 * its WordPiece tokenizer, then answers `{id, cached, asked}` with `{id, score}`: the probability
 * that the two questions ask for the same answer. The input is the pair as the model was trained on
 * it (training/verifier/train.py): `[CLS] cached [SEP] asked [SEP]`, token types 0 then 1, each
 * question cut to its first 62 and 63 word pieces. One pair per run: the int8 model quantises its
 * activations per run, so a pair's score never depends on another's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';

export interface PairVerifierWorkerData {
  /** The folder of pair-verifier.onnx, tokenizer.json and tokenizer_config.json. */
  modelDir: string;
  threads: number;
}

export type PairVerifierRequest = { id: number; cached: string; asked: string };
export type PairVerifierReply =
  | { type: 'ready' }
  | { type: 'score'; id: number; score: number }
  | { type: 'failed'; id: number; message: string }
  | { type: 'fatal'; message: string };

/** Word pieces kept of the cached and the asked question (training/verifier/train.py, 128 in all). */
const CACHED_PIECES = 62;
const ASKED_PIECES = 63;

const port = parentPort;
if (port === null) throw new Error('pair-verifier-worker.ts runs as a worker thread');
const settings = workerData as PairVerifierWorkerData;

const tokenizer = new Tokenizer(
  JSON.parse(readFileSync(join(settings.modelDir, 'tokenizer.json'), 'utf8')),
  JSON.parse(readFileSync(join(settings.modelDir, 'tokenizer_config.json'), 'utf8')),
);

/** The word pieces of one question, without the [CLS] and [SEP] the tokenizer adds. */
function pieces(text: string, most: number): number[] {
  const ids = tokenizer.encode(text).ids;
  return ids.slice(1, Math.min(ids.length - 1, most + 1));
}

async function score(session: ort.InferenceSession, cached: string, asked: string): Promise<number> {
  const first = pieces(cached, CACHED_PIECES);
  const second = pieces(asked, ASKED_PIECES);
  const tokens = [101, ...first, 102, ...second, 102];
  const ids = BigInt64Array.from(tokens, BigInt);
  const mask = new BigInt64Array(tokens.length).fill(1n);
  const types = new BigInt64Array(tokens.length).fill(1n, first.length + 2);
  const shape = [1, tokens.length];
  const output = await session.run({
    input_ids: new ort.Tensor('int64', ids, shape),
    attention_mask: new ort.Tensor('int64', mask, shape),
    token_type_ids: new ort.Tensor('int64', types, shape),
  });
  return (output.score as ort.Tensor).data[0] as number;
}

const queue: PairVerifierRequest[] = [];
let running = false;

async function drain(session: ort.InferenceSession): Promise<void> {
  if (running) return;
  running = true;
  try {
    for (let request = queue.shift(); request !== undefined; request = queue.shift()) {
      try {
        const value = await score(session, request.cached, request.asked);
        port?.postMessage({ type: 'score', id: request.id, score: value } satisfies PairVerifierReply);
      } catch (error) {
        port?.postMessage({
          type: 'failed',
          id: request.id,
          message: String(error),
        } satisfies PairVerifierReply);
      }
    }
  } finally {
    running = false;
  }
}

try {
  const session = await ort.InferenceSession.create(
    readFileSync(join(settings.modelDir, 'pair-verifier.onnx')),
    {
      intraOpNumThreads: settings.threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      // Its Add and LayerNormalization nodes stay apart: onnxruntime-node 1.30's
      // SkipLayerNormalization kernel took 1.1 ms of the 8 ms verification, against 0.3 ms for the
      // nodes it would replace (training/verifier/train.py exports them unfused for that reason).
      extra: { optimization: { disable_specified_optimizers: 'SkipLayerNormFusion' } },
    },
  );
  await score(session, 'ready?', 'ready');
  port.on('message', (request: PairVerifierRequest) => {
    queue.push(request);
    void drain(session);
  });
  port.postMessage({ type: 'ready' } satisfies PairVerifierReply);
} catch (error) {
  port.postMessage({ type: 'fatal', message: String(error) } satisfies PairVerifierReply);
}
